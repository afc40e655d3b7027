"""Import-only stand-in for PyTorch (not openpi's; see ../../README.md).

openpi's ``shared/array_typing.py`` imports torch for the type alias
``Array = jax.Array | torch.Tensor``; nothing the conformance test runs calls PyTorch.
"""


class Tensor:
    """The name ``torch.Tensor`` in openpi's type alias; never instantiated."""
