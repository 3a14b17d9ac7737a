"""A boring, deterministic script for `warrant demo` when the example skill is absent."""
import json
import os
import sys

print(json.dumps({"uid": os.getuid(), "cwd": os.getcwd(), "python": sys.version.split()[0]}))
