"""Deploy (the pipeline's extract stage): a submission's launches become one deployment.

Takes a :class:`~cfglint.load.submission.Submission`; gives a :class:`~.extract.Deployment`:
every engine process with its engine, role, flags, environment and engine configs, each value
with the span it came from. :mod:`.wrappers` strips the commands that start another command
(``docker run``, ``mpirun``, ``srun``, ``bash -c`` ...), :mod:`.launchers` tells which words start
which engine, router or frontend (both data in ``rules/engines.yaml``), :mod:`.extract` parses the
engines' arguments and merges their YAML, :mod:`.defaults` resolves engine defaults per release
and device. Imports read, knowledge and load.
"""
