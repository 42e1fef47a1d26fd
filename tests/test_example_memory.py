"""Tests never depend on what `make demo` left in examples/memory (issue 12: demo, then test)."""

from example_memory import EXAMPLE, copy_example

from tachikoma.indexer import runner


def test_a_demo_index_beside_the_example_is_not_copied(tmp_path):
    # What `make demo` leaves behind: an index of the example made with another embedder.
    demo = copy_example(tmp_path / "demo")
    runner.run(demo, embedder_name="hash:64")
    assert (demo / ".cache" / "index.db").is_file()

    copy = copy_example(tmp_path / "copy", source=demo)

    assert not any(p.name.startswith(".") for p in copy.rglob("*"))
    summary = runner.run(copy, embedder_name="hash")  # a mismatch with the demo's index would raise
    assert summary.added == len([p for p in EXAMPLE.rglob("*") if p.is_file() and p.suffix in (".md", ".jsonl")])
