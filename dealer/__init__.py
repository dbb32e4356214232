"""The match server and everything built on it, one subpackage a layer (bottom to top): ``server`` the
ACPC dealer, ``observers`` what watches a match from outside it, ``arena`` runs and their reports, ``lbr``
local best response, ``web`` the pages, ``benchmark_server`` the ACPC benchmark server, ``commands``
the command lines."""
