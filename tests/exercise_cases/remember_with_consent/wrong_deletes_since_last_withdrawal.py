"""On a withdrawal deletes only the events since its last deletion: what was said while withdrawn, added by the new consent, stays.

"Each withdrawal deletes what was added since the one before" read as "the events since": but
a new consent adds the conversation again, with the turns said while consent was withdrawn
(never deleted, since they were never added), and those come before the mark.
"""

LOSES = ("forgotten_on_withdrawal",)

DELETED_UP_TO: dict[tuple[str, str, str], int] = {}


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  conversation = (session.app_name, session.user_id, session.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    start = DELETED_UP_TO.get(conversation, 0)
    for event in session.events[start:]:
      await callback_context.delete_memory(memory_id=event.id)
    DELETED_UP_TO[conversation] = len(session.events)
