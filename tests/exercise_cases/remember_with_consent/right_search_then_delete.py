"""On withdrawal searches memory with each event's text and deletes the entries of this session."""


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
