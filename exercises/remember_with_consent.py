"""Exercise (lesson 5, long-term memory): remember only with consent, forget on request.

The cafe concierge may keep a customer's conversations in its memory service only if the
customer agreed: a tool stores their answer as ``user:memory_consent`` (True or False). Write
the agent's ``after_agent_callback``

    async def remember_with_consent(callback_context) -> None

that ADK awaits after each turn, with a ``Runner`` whose memory service is an
``InMemoryMemoryService``. After each turn:

1. when ``user:memory_consent`` is ``True``, the whole conversation so far (messages and
   replies, those from before the consent included) is in memory, searchable from the
   customer's other sessions;
2. otherwise (no answer yet, or ``False``), nothing of this conversation is added, and the
   turn still ends normally for a customer never asked;
3. when it is ``False`` (refused, or withdrawn during the conversation), every memory *this
   conversation* had added is deleted, replies included; the customer's earlier conversations
   stay in memory (forgetting a whole customer is section 8's erasure). A deleted entry never
   comes back: ``InMemoryMemoryService`` remembers deleted ids, even after a new consent.

Your one decision: what to read, and which of the context's memory methods to call.

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("remember_with_consent", remember_with_consent)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations


async def remember_with_consent(callback_context) -> None:
  """after_agent_callback: keep this conversation in memory only while the customer consents."""
  ### HINT: Read user:memory_consent; add the conversation to memory when it is True,
  ### HINT: and when it is False, delete every memory this conversation added.
  ### BEGIN SOLUTION
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    # InMemoryMemoryService's memory ids are the event ids; deleting one also stops a later
    # add_session_to_memory from bringing it back.
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
  ### END SOLUTION
