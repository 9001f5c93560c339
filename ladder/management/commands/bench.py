"""``manage.py bench [--json]``: throughput figures measured side by side in one run, as ratios.

``sandbox.*``, ``match.*`` and ``pause.*`` come from ``bots.bench`` (sandbox start-up, sandboxed against
in-process matches, with the bots paused between their turns and without); ``pipeline.*`` and ``ladder.*`` from
``ladder.benches.pipeline`` (the referee alone against the same matches through Celery, the broker and the
database, two worker processes against one, and the ladder alone against a round robin on the same two
processes); ``leaderboard.*`` from ``ladder.benches.leaderboard`` (the leaderboard and its certainty on a small
and a large generated history); ``reads.*`` from ``ladder.benches.reads`` (every page and route of the site's
reads on a small and a large generated history, and their ratios); ``exports.*`` from ``ladder.benches.exports``
(one full response of the bulk export on a small and a large generated history: its time and its memory);
``ratings.*`` from ``ladder.benches.ratings`` (rated results sharing bots applied by the game's one applier
against per-bot row locks, and the rebuild's swap). With ``--recording``, only
``recording.*`` from ``ladder.benches.recording`` (results claimed and recorded per second through the
service functions against bare multi-row INSERTs of the same rows, and the statements, rows, bytes and
WAL a recorded match costs).
"""

import json

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Measure sandbox and pipeline throughput (see ladder/benches/pipeline.py for what each figure means)."

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="print one JSON object")
        parser.add_argument("--matches", type=int, default=100, help="matches in the measured round robin (default: 100)")
        parser.add_argument("--rounds", type=int, default=5,
                            help="pairs of a round robin through Celery and the same matches by the referee, whose "
                                 "median ratio is pipeline.ratio (default: 5)")
        parser.add_argument("--scaling-matches", type=int, default=None,
                            help="matches per run of the scaling measurement (default: --matches)")
        parser.add_argument("--recovery-matches", type=int, default=120,
                            help="matches of the round robins timed through a killed worker and a flushed broker "
                                 "(default: 120; 0 leaves the recovery figures out)")
        parser.add_argument("--ladder-seconds", type=float, default=30.0,
                            help="seconds the ladder alone is timed on two worker processes, after its warm-up "
                                 "(default: 30; 0 leaves the ladder figures out)")
        parser.add_argument("--repeats", type=int, default=40,
                            help="repeats of the sandbox measurements, whose medians are taken (default: 40)")
        parser.add_argument("--skip-sandbox", action="store_true",
                            help="leave out the sandbox figures (match.*, pause.*, sandbox.*)")
        parser.add_argument("--skip-pipeline", action="store_true",
                            help="leave out the pipeline figures (pipeline.*), which start worker processes")
        parser.add_argument("--leaderboard-matches", default="10000,100000",
                            help="sizes of the generated histories of the leaderboard figures, comma-separated, "
                                 "ascending (default: 10000,100000)")
        parser.add_argument("--skip-leaderboard", action="store_true",
                            help="leave out the leaderboard figures (leaderboard.*)")
        parser.add_argument("--reads-matches", default="10000,100000",
                            help="sizes of the generated histories of the reads figures, comma-separated, ascending "
                                 "(default: 10000,100000; e.g. 10000,1000000 for the million)")
        parser.add_argument("--skip-reads", action="store_true", help="leave out the reads figures (reads.*)")
        parser.add_argument("--exports-matches", default="10000,100000",
                            help="history sizes of the export figures, comma-separated (default: 10000,100000)")
        parser.add_argument("--skip-exports", action="store_true", help="leave out the export figures (exports.*)")
        parser.add_argument("--ratings-matches", type=int, default=600,
                            help="rated results applied by each variant of the ratings figures (default: 600)")
        parser.add_argument("--skip-ratings", action="store_true", help="leave out the ratings figures (ratings.*)")
        parser.add_argument("--recording", action="store_true",
                            help="measure only the recording figures (recording.*): results recorded per second "
                                 "against bare INSERTs, statements, rows, bytes and WAL per match")
        parser.add_argument("--recording-matches", type=int, default=2000,
                            help="matches recorded for the rate of the recording figures (default: 2000)")
        parser.add_argument("--recording-processes", type=int, default=2,
                            help="processes recording at once for the recording figures (default: 2)")

    def handle(self, *args, **options):
        if options["rounds"] < 1:
            raise CommandError("--rounds must be at least 1")
        figures: dict = {}
        if options["recording"]:
            from ladder.benches.recording import bench_recording

            if options["recording_matches"] < 1 or options["recording_processes"] < 1:
                raise CommandError("--recording-matches and --recording-processes must be at least 1")
            figures.update(bench_recording(matches=options["recording_matches"],
                                           processes=options["recording_processes"]))
            options.update(skip_sandbox=True, skip_pipeline=True, skip_leaderboard=True, skip_reads=True,
                           skip_exports=True, skip_ratings=True)
        if not options["skip_sandbox"]:
            from bots.bench import bench_sandbox

            figures.update(bench_sandbox(repeats=options["repeats"]))
        if not options["skip_pipeline"]:
            from ladder.benches.pipeline import bench_pipeline

            figures.update(bench_pipeline(matches=options["matches"], scaling_matches=options["scaling_matches"],
                                          recovery_matches=options["recovery_matches"],
                                          ladder_seconds=options["ladder_seconds"], rounds=options["rounds"]))
        if not options["skip_leaderboard"]:
            from ladder.benches.leaderboard import bench_leaderboard

            sizes = tuple(int(size) for size in options["leaderboard_matches"].split(","))
            figures.update(bench_leaderboard(sizes=sizes))
        if not options["skip_reads"]:
            from ladder.benches.reads import bench_reads

            sizes = tuple(int(size) for size in options["reads_matches"].split(","))
            figures.update(bench_reads(sizes=sizes))
        if not options["skip_exports"]:
            from ladder.benches.exports import bench_exports

            sizes = tuple(int(size) for size in options["exports_matches"].split(","))
            figures.update(bench_exports(sizes=sizes))
        if not options["skip_ratings"]:
            from ladder.benches.ratings import bench_ratings

            figures.update(bench_ratings(matches=options["ratings_matches"]))
        if options["json"]:
            self.stdout.write(json.dumps(figures, sort_keys=True))
            return
        width = max((len(key) for key in figures), default=0)
        for key, value in sorted(figures.items()):
            self.stdout.write(f"{key.ljust(width)}  {value}")
