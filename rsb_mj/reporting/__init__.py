"""Reporting: episode records of one or more run folders -> ``rsb report``'s Markdown, CSV,
PNG and HTML.

The stage after the runs (:mod:`rsb_mj.evaluation`, which writes the records and computes
the metrics): :mod:`.runs` reads and checks the run folders (:mod:`.validation`,
:mod:`.renderers`), :mod:`.report` computes what a report holds once (:mod:`.model`,
:mod:`.header`, :mod:`.sections`, :mod:`.plots`, :mod:`.probe_results`) and draws it as
Markdown (:mod:`.markdown`) and as one HTML page (:mod:`.html`).
"""
