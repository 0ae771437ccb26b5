"""A match statement on the consent value, deleting with a comprehension of awaits."""

import asyncio


async def remember_with_consent(callback_context) -> None:
  match callback_context.state.get("user:memory_consent"):
    case True:
      await callback_context.add_session_to_memory()
    case False:
      await asyncio.gather(*[callback_context.delete_memory(memory_id=e.id)
                             for e in callback_context.session.events])
