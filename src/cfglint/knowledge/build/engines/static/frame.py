"""Where code runs: :class:`Frame`, a module and (inside a function) its locals."""

from __future__ import annotations

from .values import ClassRef, FunctionRef

__all__ = ["Frame"]


class Frame:
    """Where code runs: a module and, inside a function, its local variables.

    ``locals`` is None at module level (names then resolve to module bindings);
    ``class_scope`` is the class whose body an expression belongs to; ``unknown_depth`` counts
    the undecided conditions around the current statement; ``ctrl`` the environment variables
    the control flow so far depended on.
    """

    __slots__ = ("module", "locals", "func", "self_obj", "bound_cls", "class_scope", "unknown_depth", "ctrl",
                 "returns")

    def __init__(self, module: str, locals: dict | None = None, func: FunctionRef | None = None,
                 self_obj=None, bound_cls: ClassRef | None = None, class_scope: ClassRef | None = None):
        self.module, self.locals, self.func = module, locals, func
        self.self_obj, self.bound_cls, self.class_scope = self_obj, bound_cls, class_scope
        self.unknown_depth = 0
        self.ctrl: set = set()
        self.returns: list | None = None
