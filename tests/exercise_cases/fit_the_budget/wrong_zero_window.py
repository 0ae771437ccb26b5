"""num_recent_events=0 loads no events at all, summaries included: the model sees only the new message."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("allergy_still_reaches_the_model", "recent_turns_word_for_word")

def fit_the_budget(budget_tokens, summarizer):
    return (RunConfig(get_session_config=GetSessionConfig(num_recent_events=0)),
            EventsCompactionConfig(summarizer=summarizer, compaction_interval=3, overlap_size=1))
