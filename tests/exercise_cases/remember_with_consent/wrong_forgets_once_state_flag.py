"""Forgets a conversation only once (a session-state flag): after a new consent, a second withdrawal deletes nothing.

From the red team (w01_forget_once_state_flag.py).
"""

LOSES = ("forgotten_on_withdrawal", "conversation_untouched")

async def remember_with_consent(callback_context) -> None:
  state = callback_context.state
  consent = state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False and not state.get("memory_forgotten"):
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
    state["memory_forgotten"] = True
