"""``python -m faircode.monitor fairness evaluate FILE ...``."""

from __future__ import annotations

import sys

from .cli import run

if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
