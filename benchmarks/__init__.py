"""``make bench``: speed figures, side by side in one run, printed as a table.

Each section measures ours and, where there is one, a reference in the same
process and run, and reports the ratio; these machines are noisy, so ratios
measured together mean more than absolute rates.

    python -m benchmarks [section ...]
    # sections: evaluator engine dealer runner inprocess batched tournament cfr dqn logs lbr poker_cnn ensemble web
    #           startup

One module per topic: ``engine`` (evaluator, engine), ``dealer`` (dealer, web), ``runner`` (runner,
inprocess, batched, tournament), ``agents`` (cfr, dqn, poker_cnn, ensemble), ``reports`` (logs, lbr),
``startup``; ``timing`` holds what they share. Not part of the installed package.
"""
