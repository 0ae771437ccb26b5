"""Exercise (lesson 5, long-term memory): remember only with consent, forget on request.

The cafe concierge may keep a customer's conversations in its memory service only if the
customer agreed: a tool stores their answer as ``user:memory_consent`` (True or False; a
customer never asked has no such key). Write the agent's ``after_agent_callback``

    async def remember_with_consent(callback_context) -> None

that ADK awaits after each turn, with a ``Runner`` whose memory service is an
``InMemoryMemoryService``. After each turn, reading the consent as it is now (it is the
customer's: a change in one of their sessions holds in all of them; a customer is an app and
a user id, compared exactly (``Ada`` is not ``ada``, ``CAFE_1`` not ``cafe_1``), and another
customer, even one in a session of the same id or with the same user id in another app,
changes nothing of what is kept of this one):

1. when ``user:memory_consent`` is ``True``, memory holds this conversation (this session):
   every one of its events so far, in their order (messages, tool calls, tool results and
   replies, those from before the consent included), under this session, as
   ``add_session_to_memory`` stores them (a memory's id is its event's id), all but the ones
   deleted before. What counts of a memory is what a search gives back: its id, author,
   content and time;
2. otherwise (no answer yet, or ``False``), nothing of this conversation is added, and the
   turn still ends normally for a customer never asked;
3. when it is ``False`` (refused, or withdrawn in this session or another one), on every such
   turn, every memory *this conversation* had added is deleted with ``delete_memory``, tool
   calls and replies included. A customer may consent and withdraw again and again, in this
   session or another one: every turn where it is ``False`` deletes all that memory then holds
   of this conversation, what a later consent added again included. A deleted memory never
   comes back: ``InMemoryMemoryService`` remembers deleted ids, so a later consent adds this
   conversation again without them (what was said while consent was withdrawn, never deleted,
   is then added like the rest). Only this session's memories go: a customer who withdraws in
   one session keeps their other conversations in memory, until they speak in one of them
   again without consent (then it is this conversation);
4. nothing else changes: other customers' memories, the same customer id in another app,
   conversations memory held from before (forgetting a whole customer is section 8's
   erasure), and the conversation itself: the callback returns ``None`` on every turn (not
   ``False`` nor ``""``; a returned Content, even an empty one, would become a reply), adds no
   event and writes no state, not even ``temp:`` state (consent is read, never written: a state
   written from a callback is an event of the conversation).

Your one decision: what to read, and which of the context's memory methods to call.

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("remember_with_consent", remember_with_consent)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations


async def remember_with_consent(callback_context) -> None:
  """after_agent_callback: keep this conversation in memory only while the customer consents."""
  ### HINT: Save the conversation only while the customer's memory consent is exactly True;
  ### HINT: when it is False, delete every memory this conversation added.
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
