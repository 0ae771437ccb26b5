"""Names its parameter ctx (ADK passes it by position then), collects the ids first and deletes them newest first."""


async def remember_with_consent(ctx):
  consent = ctx.state.get("user:memory_consent", None)
  if consent not in (True, False):
    return None
  if consent:
    await ctx.add_session_to_memory()
    return None
  ids = [event.id for event in ctx.session.events if event.id]
  for memory_id in ids[::-1]:
    await ctx.delete_memory(memory_id=memory_id)
