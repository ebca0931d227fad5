"""Eval-log files the tests of judgebayes/data/logs/ share: Inspect AI logs written by
Inspect itself (the offline ``mockllm`` provider answers, a mock grader gives the verdict
the test chooses per sample), the human labels of their outputs, and promptfoo's result
records in the format of its own writer.

The ``inspect_logs`` fixture (tests/conftest.py) writes the logs once a session.
"""

import pandas as pd

# the grade the mock grader gives each sample's answer, per system: C correct, I incorrect;
# "X" is a grader reply without a grade (Inspect leaves the sample unscored)
PLAN = {
    "mockllm/sys-a": "CCICCICIICCCCICIXCCI",
    "mockllm/sys-b": "CIIICIICIIICCICIIIXC",
}
N = 20


def reply(text):
    """A mock model's reply, with a usage so Inspect does not fetch a tokenizer."""
    from inspect_ai.model import ModelOutput, ModelUsage

    out = ModelOutput.from_content(model="mockllm", content=text)
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return out


def answer_for(system):
    """The mock system's answer to "question <i>": "<system> answer <i>"."""

    def answer(messages, tools, tool_choice, config):
        return reply(f"{system} answer {int(messages[-1].text.split()[-1])}")

    return answer


def write_inspect_logs(log_dir):
    """Inspect's logs of the two systems of :data:`PLAN` on N samples, graded by a mock
    model as the plan says, written into ``log_dir``."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import model_graded_qa
    from inspect_ai.solver import generate

    def grader(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        # the grading prompt quotes the submission: "<system> answer <i>"
        sub = prompt.split("[Submission]: ")[1].split("\n")[0].split()
        g = PLAN[sub[0]][int(sub[2])]
        return reply("Checked." if g == "X" else f"Checked.\nGRADE: {g}")

    task = Task(
        dataset=[Sample(id=f"q{i}", input=f"question {i}", target="42") for i in range(N)],
        solver=generate(),
        scorer=model_graded_qa(model=get_model("mockllm/grader", custom_outputs=grader)),
    )
    models = [get_model(s, custom_outputs=answer_for(s)) for s in PLAN]
    logs = inspect_eval(task, model=models, log_dir=str(log_dir), display="none")
    assert all(lg.status == "success" for lg in logs)
    return log_dir


LABELS = {
    ("mockllm/sys-a", "q0"): 1,
    ("mockllm/sys-a", "q2"): 0,
    ("mockllm/sys-a", "q3"): 1,
    ("mockllm/sys-a", "q5"): 1,
    ("mockllm/sys-a", "q7"): 0,
    ("mockllm/sys-a", "q10"): 1,
    ("mockllm/sys-b", "q0"): 1,
    ("mockllm/sys-b", "q1"): 0,
    ("mockllm/sys-b", "q4"): 1,
    ("mockllm/sys-b", "q5"): 0,
    ("mockllm/sys-b", "q11"): 1,
    ("mockllm/sys-b", "q13"): 0,
}


def labels_frame():
    """The human labels of :data:`LABELS` as a labels frame."""
    return pd.DataFrame([{"system": s, "sample_id": i, "human": h} for (s, i), h in LABELS.items()])


def promptfoo_result(test_idx, provider, rubric_pass, other_pass=True, error=False):
    """One of promptfoo's EvaluateResult records (src/types): provider, testIdx,
    promptIdx, gradingResult."""
    rec = {
        "provider": {"id": f"openai:{provider}", "label": provider},
        "prompt": {"raw": "Answer: {{q}}", "label": "p"},
        "vars": {"q": f"question {test_idx}"},
        "testIdx": test_idx,
        "promptIdx": 0,
        "success": rubric_pass and other_pass,
        "score": float(rubric_pass),
        "latencyMs": 12,
    }
    if error:
        rec["error"] = "API error"
        rec["success"] = False
        return rec
    rec["gradingResult"] = {
        "pass": rubric_pass and other_pass,
        "score": float(rubric_pass),
        "reason": "graded",
        "componentResults": [
            {"pass": rubric_pass, "score": 1.0, "assertion": {"type": "llm-rubric", "value": "ok"}},
            {"pass": other_pass, "score": 1.0, "assertion": {"type": "contains", "value": "x"}},
        ],
    }
    return rec
