"""On withdrawal deletes only the customer's own messages: the replies repeating them stay."""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      if event.author == "user":
        await callback_context.delete_memory(memory_id=event.id)
