"""Forgets by re-adding the session with no events: hidden, not deleted; a new consent brings it all back.

add_session_to_memory replaces the session's entries, so memory looks empty after the
withdrawal, but InMemoryMemoryService never recorded a deletion: when the customer consents
again, every forgotten word comes back (the issue's 12/12 wrong solution).
"""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  memory = callback_context._invocation_context.memory_service
  session = callback_context.session
  if consent is True:
    await memory.add_session_to_memory(session)
  elif consent is False:
    await memory.add_session_to_memory(session.model_copy(update={"events": []}))
