"""Schedules the memory write with asyncio.create_task and returns without awaiting it ("so the turn is not slowed"): when the callback returns, memory does not hold the conversation yet."""
import asyncio
LOSES = ("saved_with_consent",)

_tasks = set()
async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  s = callback_context.session
  if consent is True:
    t = asyncio.create_task(callback_context.add_session_to_memory())
    _tasks.add(t); t.add_done_callback(_tasks.discard)
  elif consent is False:
    for e in list(s.events):
      await callback_context.delete_memory(e.id)

