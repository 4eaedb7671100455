"""python -m rankeval ARGS: runs the rankeval binary (rankeval.binary())
with ARGS, for a shell where pip's scripts directory is not on PATH."""

import subprocess
import sys

from . import binary

if __name__ == "__main__":
    try:
        sys.exit(subprocess.call([binary()] + sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
