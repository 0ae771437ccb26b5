"""A plain def that starts the right work as a task and returns: the caller's await gets None."""
import asyncio

from solutions.copy_user_to import copy_user_to as _right

_started = []  # the tasks, kept alive (a task nobody references may be collected)


def copy_user_to(*args, **kwargs):
  _started.append(asyncio.get_running_loop().create_task(_right(*args, **kwargs)))
