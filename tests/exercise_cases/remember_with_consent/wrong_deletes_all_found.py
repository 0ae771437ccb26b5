"""On withdrawal deletes everything a search finds: the customer's earlier conversations go too."""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      text = " ".join(p.text for p in (event.content.parts if event.content else []) or [] if p.text)
      if text:
        for entry in (await callback_context.search_memory(text)).memories:
          await callback_context.delete_memory(memory_id=entry.id)
