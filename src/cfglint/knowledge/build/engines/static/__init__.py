"""A static Python evaluator for the knowledge compiler: it reads an engine release's source tree
and works out what its code would compute, without importing or running any of it.

One concern per module, lowest first:

- :mod:`.astutil`: small helpers on syntax trees (dotted names, literals, short text);
- :mod:`.source`: the release's package tree (module names to files, each parsed once);
- :mod:`.values`: the values the evaluator computes with (known Python values plus references,
  unknowns and environment-tainted values);
- :mod:`.namespace`: a module's top-level names as runtime Python binds them (``TYPE_CHECKING``,
  ``try``/``except``, star imports, later in-place changes);
- :mod:`.frame`: where code runs (a module, a function's locals);
- :mod:`.typeforms`: typing values (``Literal``, ``Optional``, ``Union``, ``Annotated``, generics);
- :mod:`.classes`: classes (method resolution order, enums, dataclass / pydantic / msgspec fields
  and their defaults, attribute docstrings);
- :mod:`.builtins`: calls whose result follows from their arguments (methods of plain values,
  the builtins and standard-library functions the evaluator knows, ``os.environ`` reads);
- :mod:`.evaluator`: expressions (names, imports, operators, comprehensions, attributes);
- :mod:`.interpreter`: statements and calls (functions entered under a policy, instances,
  ``super()``, both branches of an undecided condition, environment reads);
- :mod:`.argparse_model`: the argparse parsers, groups and arguments the interpreted code builds.

The engine modules (``engines/vllm.py`` ...) subclass :class:`.interpreter.Interpreter` to say
which functions to enter and what an engine-specific call means; none of them evaluates Python
on its own.
"""
