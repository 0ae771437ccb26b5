"""Schedules the memory calls as tasks instead of awaiting them: they happen after the turn is over.

Each turn's memory is then one turn late (and what the last turn should do happens after
the conversation ended): the callback must await what it asks of the memory service.
"""

import asyncio

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")

  async def later() -> None:
    await asyncio.sleep(0.01)
    if consent is True:
      await callback_context.add_session_to_memory()
    elif consent is False:
      for event in callback_context.session.events:
        await callback_context.delete_memory(memory_id=event.id)

  asyncio.ensure_future(later())
