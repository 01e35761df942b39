"""What a structured retry changes, and what a reply says about itself.

A retry at temperature 0 repeats a small model's failure byte for byte, so each retry names the error,
asks for a shorter answer when the previous one was cut, and raises the temperature a little
(``retry_temperature``). A reply's metadata tells whether it was cut at the output cap (Ollama's
``done_reason``, an OpenAI-compatible server's ``finish_reason``: "length") and how many tokens it took.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from rabbithole.core.config import LLMSettings

#: How much each retry raises the sampling temperature, and the ceiling it is raised to.
RETRY_TEMPERATURE_STEP = 0.3
RETRY_TEMPERATURE_CAP = 1.0


def retry_temperature(base: float, retry: int) -> float:
    """The temperature of retry number ``retry`` (1 = the first retry): ``base`` raised by
    ``RETRY_TEMPERATURE_STEP`` per retry up to ``RETRY_TEMPERATURE_CAP``, never below ``base``."""
    raised = min(RETRY_TEMPERATURE_CAP, base + RETRY_TEMPERATURE_STEP * retry)
    return round(max(base, raised), 3)


def temperature_kwargs(settings: LLMSettings, temperature: float) -> dict[str, Any]:
    """Call kwargs that set one request's temperature.

    ChatOpenAI puts call kwargs into the request body. ChatOllama (langchain-ollama's ``_chat_params``)
    takes a call's ``options`` instead of all the options it was built with, so the others that
    ``build_chat_model`` sets go along unchanged (num_ctx, num_predict)."""
    if settings.provider == "ollama":
        options = {
            "num_ctx": settings.num_ctx,
            "num_predict": settings.max_output_tokens,
            "temperature": temperature,
        }
        return {"options": options}
    return {"temperature": temperature}


def cut_at_cap(reply: AIMessage) -> bool:
    """The reply stopped at the output cap (num_predict / max tokens)."""
    meta = reply.response_metadata or {}
    return meta.get("done_reason") == "length" or meta.get("finish_reason") == "length"


def reply_tokens(reply: AIMessage) -> tuple[int, int]:
    """(prompt tokens, output tokens) the reply reports; 0 for a count it does not report."""
    meta = reply.response_metadata or {}
    usage = reply.usage_metadata
    prompt = meta.get("prompt_eval_count") or (usage["input_tokens"] if usage else 0)
    output = meta.get("eval_count") or (usage["output_tokens"] if usage else 0)
    return (prompt if isinstance(prompt, int) else 0, output if isinstance(output, int) else 0)


def feedback_text(schema_name: str, error: str, *, chars: int, at_cap: bool, unterminated: bool) -> str:
    """What a retry tells the model about its previous answer."""
    text = f"Your previous answer was not a valid {schema_name}: {error}."
    if at_cap:
        text += (
            f" Your answer was cut at the length limit after {chars} characters; "
            "answer with fewer and shorter items."
        )
    elif unterminated:
        text += (
            f" Your answer ended after {chars} characters before the JSON object was complete; "
            "answer with fewer and shorter items."
        )
    return text + " Answer again with only a JSON object that matches the schema."
