"""The order in which a student sees a choice question's options.

Off by default (``show_quiz(..., shuffle=True)`` turns it on; a question can opt out with
``shuffle: false``, for an option like "none of the above"). When on, the order is a pure
function of (student, bank, question): seeded with a hash, never with ``random``'s global state,
so the same student sees the same order after a kernel restart, on another computer, and in the
instructor's analytics, while two students sitting side by side usually see different orders.

Responses are always stored as the bank's option indices, never as display positions, so
shuffling changes nothing in the progress file, the export or the analytics.
"""

from __future__ import annotations

import hashlib
import random


def option_order(count: int, *, user_id: str, bank: str, question_id: str,
                 shuffle: bool) -> list[int]:
  """Bank indices in display order: ``[0, 1, ..., count-1]`` unless ``shuffle``."""
  order = list(range(count))
  if not shuffle or count < 2:
    return order
  digest = hashlib.sha256(f"{user_id}\x00{bank}\x00{question_id}".encode()).digest()
  random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
  return order
