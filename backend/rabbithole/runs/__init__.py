"""The runs layer: the only owner of a research run's life, beside ``research/`` (which holds the graphs and
never touches run storage).

- ``store.py``: the run store (``RunStore``, table ``research_runs``): question, status, phase, result;
- ``event_log.py``, ``event_writer.py``, ``event_batches.py``, ``event_appenders.py``: each run's events,
  numbered, and their writer (its appender by backend);
- ``leases.py``: the claims of runs (which process executes one), renewed by a heartbeat;
- ``aio.py``: the store for async code (``AsyncRunStore``: each call in a thread);
- ``unsaved_status.py``: final statuses the store could not take yet (a full disk), kept and retried;
- ``lifecycle.py``: the one transition function: a status written once, its ``status`` event published;
- ``runner.py``: executes the graphs (create, prepare and execute, view) through the lifecycle;
- ``local_run.py``: a run the CLI executes, under its lease, with its events in the log.

The store, the event log and the claims are the interfaces a second (server) backend implements.
"""
