"""A plain def that does the right work (on a loop of its own): the caller's await gets no awaitable."""
import asyncio
import threading

from solutions.forget_user import forget_user as _right


def forget_user(*args, **kwargs):
  returned = {}
  worker = threading.Thread(target=lambda: returned.update(value=asyncio.run(_right(*args, **kwargs))))
  worker.start()
  worker.join()
  return returned.get("value")
