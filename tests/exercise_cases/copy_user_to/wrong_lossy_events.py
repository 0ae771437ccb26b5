"""Re-creates each event from its text: new ids, new timestamps, new invocation ids, and the
function calls and responses are gone."""

from google.adk.events import Event, EventActions
from google.genai import types

LOSES = ("events_copied",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for item in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
    own = {k: v for k, v in session.state.items() if ":" not in k}
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=item.id,
                                     state=own)
    for event in session.events:
      text = "".join(p.text or "" for p in (event.content.parts if event.content else []) or [])
      content = types.Content(role=event.content.role if event.content else "user",
                              parts=[types.Part(text=text)])
      await dest.append_event(copy, Event(author=event.author, content=content,
                                          actions=EventActions(
                                              state_delta=dict(event.actions.state_delta))))
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
