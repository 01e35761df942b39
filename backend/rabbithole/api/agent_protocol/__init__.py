"""The subset of LangGraph's Agent Server API (the Agent Protocol) that its clients use, served at
``/api/langgraph`` beside the rest of the API (same runs, storage and token): ``langgraph-sdk``'s
``get_client(url=".../api/langgraph")`` drives Rabbithole's research and report graphs.

A thread is one Rabbithole run (the thread id is the run id): created empty, it becomes a run on its first
Agent Protocol run (its input: the question and collections); every later Agent Protocol run on the thread
resumes that Rabbithole run (``command: {resume: ...}``). An Agent Protocol run is the stretch of the
Rabbithole run's events from its start to the next interrupt or end. Empty threads, thread metadata and
the Agent Protocol runs' ids live in the server's memory (``registry.py``); the runs and their events are
the runs layer's, persisted."""

from fastapi import APIRouter

from rabbithole.api.agent_protocol import assistants, runs, threads

#: Where the Agent Protocol is served (a client's base URL: ``http://host:port/api/langgraph``).
AGENT_PROTOCOL_PREFIX = "/api/langgraph"
agent_protocol_routers: tuple[APIRouter, ...] = (assistants.router, threads.router, runs.router)
