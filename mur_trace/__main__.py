# Absolute, so that this file also runs as a script: spark-submit .../mur_trace/__main__.py
from mur_trace.cli import main

main()
