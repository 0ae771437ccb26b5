"""Child processes of a lesson print no terminal colours, whatever the kernel sets (issue 27:
on Python 3.13 the kernel's FORCE_COLOR=1 coloured their tracebacks, and nbval failed)."""

from __future__ import annotations

import os
import subprocess
import sys


def test_importing_the_course_turns_python_colours_off_for_children():
  code = ("import os, subprocess, sys; import adkcourse; "
          "done = subprocess.run([sys.executable, '-c', 'import os; print(os.environ.get(\"PYTHON_COLORS\"))'], "
          "capture_output=True, text=True); print(done.stdout.strip())")
  environment = {k: v for k, v in os.environ.items() if k != "PYTHON_COLORS"}
  environment["FORCE_COLOR"] = "1"
  done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                        env=environment, check=True)
  assert done.stdout.strip() == "0"


def test_a_readers_own_choice_is_kept():
  environment = dict(os.environ, PYTHON_COLORS="1")
  done = subprocess.run([sys.executable, "-c", "import adkcourse, os; print(os.environ['PYTHON_COLORS'])"],
                        capture_output=True, text=True, env=environment, check=True)
  assert done.stdout.strip() == "1"
