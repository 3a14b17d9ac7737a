"""Plays a scripted agent (docs/scripted-agent.md) without a model or an agent CLI.

A generic *command* agent for `warrant eval --agent command`: reads the prompt on stdin, runs the
script's tool calls itself in the current directory (Bash through /bin/bash, Read, Write, Edit,
Skill), chooses turns with the same rules as the scripted server (cursor, when_result_contains,
when_result_not_contains, goto, max_visits, max_steps), and prints the final text on stdout.

    warrant eval --agent command --agent-bin /usr/bin/python3 \
        --agent-arg examples/eval/agents/replay.py --agent-arg SCRIPT.toml ...
"""
import json
import os
import subprocess
import sys
import tomllib


def as_list(v):
    if v is None:
        return []
    return [v] if isinstance(v, str) else list(v)


def calls_of(turn):
    if "tool" in turn:
        return [{"tool": turn["tool"], "input": turn.get("input", {})}]
    return turn.get("calls", [])


def run_tool(call):
    tool, inp = call["tool"], call.get("input", {})
    try:
        if tool == "Bash":
            p = subprocess.run(["/bin/bash", "-c", inp["command"]], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=inp.get("timeout", 120000) / 1000)
            return p.stdout.decode("utf-8", "replace")
        if tool == "Read":
            with open(inp["file_path"], encoding="utf-8") as f:
                return f.read()
        if tool == "Write":
            with open(inp["file_path"], "w", encoding="utf-8") as f:
                f.write(inp["content"])
            return "File written: " + inp["file_path"]
        if tool == "Edit":
            with open(inp["file_path"], encoding="utf-8") as f:
                text = f.read()
            if inp["old_string"] not in text:
                return "Error: old_string not found"
            count = -1 if inp.get("replace_all") else 1
            text = text.replace(inp["old_string"], inp["new_string"], count)
            with open(inp["file_path"], "w", encoding="utf-8") as f:
                f.write(text)
            return "File edited: " + inp["file_path"]
        if tool == "Skill":
            return "Launching skill: " + inp.get("skill", "")
        return "Error: unknown tool " + tool
    except Exception as e:  # a tool error is a tool result, as in the real agent
        return "Error: %s" % e


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        script = json.load(f) if path.endswith(".json") else tomllib.load(f)
    sys.stdin.read()
    turns = script.get("turn", script.get("turns", []))
    ids = {t["id"]: i for i, t in enumerate(turns) if "id" in t}
    visits = [0] * len(turns)
    cursor, results, steps = 0, None, 0
    while steps < script.get("max_steps", 50):
        steps += 1
        chosen = None
        for i in range(cursor, len(turns)):
            t = turns[i]
            joined = "\n".join(results) if results is not None else None
            if t.get("when_result_contains") is not None:
                if joined is None or not all(s in joined for s in as_list(t["when_result_contains"])):
                    continue
            if t.get("when_result_not_contains") is not None and joined is not None:
                if any(s in joined for s in as_list(t["when_result_not_contains"])):
                    continue
            if "max_visits" in t and visits[i] >= t["max_visits"]:
                continue
            chosen = i
            break
        if chosen is None:
            break
        t = turns[chosen]
        visits[chosen] += 1
        calls = calls_of(t)
        if not calls:
            print(t.get("text", ""))
            return
        results = [run_tool(c) for c in calls]
        cursor = ids[t["goto"]] if "goto" in t else chosen + 1
    print(script.get("end_text", "Scripted agent: no turn left in the script."))


main()
