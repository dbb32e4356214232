"""The one exception type raised for bad input anywhere in the protocol package."""


class ProtocolError(ValueError):
    """Malformed or out-of-range input: a game definition, a state string, an action.

    The message names what was wrong and, for files, the file and line.
    """
