"""The Django project and app of the bot ladder: settings, models, services, REST API and website."""

import os

# The ratings' linear algebra (numpy over OpenBLAS) works on matrices of a few hundred rows at most, where
# BLAS threads cost more than they save (docs/benchmarks.md). Each web and worker process serves one
# request at a time; the processes are the parallelism. Set here, before anything imports numpy; an
# operator's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
