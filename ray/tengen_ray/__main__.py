"""`python -m tengen_ray`: the same as the `tengen-ray` command."""

import sys

from .driver import main

sys.exit(main())
