"""OracleError: a request the oracle could not serve; its text becomes the reply's `error`.

Contract: every failure the oracle reports to the judge is an OracleError whose message says what
failed and where (the problem, the tensor, the shape). The server turns it into
{"ok": false, "error": message} and keeps serving.
"""


class OracleError(Exception):
    """A failed request (the message is the reply's error)."""


def shape_str(shape) -> str:
    """[3, 37] for a shape given as a tuple, a list or a torch.Size."""
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"
