"""The runs layer: the only owner of a research run's life, beside ``research/`` (which holds the graphs and
never touches run storage).

- ``store.py``: the run store (``RunStore``, table ``research_runs``): question, status, phase, result;
- ``event_log.py``, ``event_writer.py``, ``event_batches.py``: each run's events, numbered, and their writer;
- ``leases.py``: the claims of runs (which process executes one), renewed by a heartbeat;
- ``unsaved_status.py``: final statuses the store could not take yet (a full disk), kept and retried;
- ``runner.py``: executes the graphs (create, advance, view);
- ``local_run.py``: a run the CLI executes, under its lease, with its events in the log.

The store, the event log and the claims are the interfaces a second (server) backend implements.
"""
