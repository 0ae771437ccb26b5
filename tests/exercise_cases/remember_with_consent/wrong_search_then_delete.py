"""On withdrawal deletes this session's entries that a search finds: no search finds tool calls.

A search matches words of text parts, so the function call and function response events that
the consent turns stored stay in memory (and a search returns 10 entries at most).
"""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent", None)
  if consent is not True and consent is not False:
    return
  if consent:
    await callback_context.add_session_to_memory()
    return
  mine = {event.id for event in callback_context.session.events}
  for event in callback_context.session.events:
    text = " ".join(p.text for p in (event.content.parts if event.content else []) or [] if p.text)
    if not text:
      continue
    for entry in (await callback_context.search_memory(text)).memories:
      if entry.id in mine:
        await callback_context.delete_memory(memory_id=entry.id)
