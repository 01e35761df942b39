"""Moving an installation between backends: ``rabbithole export FOLDER`` writes what the configured one holds
(catalog, runs and their events, ingestion jobs, vectors, uploaded PDFs) into a folder; ``rabbithole import
FOLDER`` loads it into the configured one (embedded SQLite + Chroma, or PostgreSQL + a Chroma server), each
side counting what it holds and refusing to finish when the counts disagree (docs/deployment.md, "Moving an
installation")."""
