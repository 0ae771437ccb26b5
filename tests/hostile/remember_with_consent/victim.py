"""The reference behaviour, in the same class as the forgers: full marks."""


async def remember_with_consent(callback_context) -> None:
    consent = callback_context.state.get("user:memory_consent")
    if consent is True:
        await callback_context.add_session_to_memory()
    elif consent is False:
        for event in callback_context.session.events:
            await callback_context.delete_memory(memory_id=event.id)
