"""Deletes only in the turn where the customer says no: an older session they speak in later keeps its memories.

Consent is the customer's, so after a withdrawal in one session, a turn in an older session
(whose memories are still there) has consent False too: that conversation must go then.
"""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    return
  said_no_now = any(
      e.invocation_id == callback_context.invocation_id and e.content
      and any(p.function_call and p.function_call.name == "set_memory_consent"
              for p in e.content.parts or [])
      for e in session.events)
  if consent is False and said_no_now:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
