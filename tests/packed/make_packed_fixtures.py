#!/usr/bin/python3
"""Fixtures for the packed-sequence tests (run with Debian's /usr/bin/python3, which has torch).

    /usr/bin/python3 tests/packed/make_packed_fixtures.py OUT_DIR [--list]

Each case is pack_padded_sequence -> nn.LSTM / nn.GRU / nn.RNN -> pad_packed_sequence, traced or
scripted. Writes, for every case, OUT_DIR/CASE/model.pt, OUT_DIR/CASE/export.json ({"cli_args":
[...], "sizes": N}) and OUT_DIR/CASE/size_K/ (inputs and PyTorch's outputs, meta.json as
tests/ort/compare.js reads it) for several sets of lengths, and for the dynamic cases other batch
and time sizes. All cases in one process (importing torch costs seconds), under a lock, and only
when this file changed. --list prints the case names.

Case names: CELL_LAYERS_DIRECTIONS_LAYOUT_STATE_ORDER_METHOD[_EXTRA]
  CELL lstm/gru/tanh/relu; DIRECTIONS uni/bi; LAYOUT tf (time first) / bf (batch_first);
  STATE h0 (initial state given as inputs) / noh; ORDER sorted (enforce_sorted=True, lengths
  sorted) / unsorted (enforce_sorted=False, lengths in any order); METHOD trace/script.
"""
import json
import os
import shutil
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "fixtures"))

INPUT, HIDDEN = 4, 5

# (cell, layers, bidirectional, batch_first, initial state, enforce_sorted, method, total_length)
GRID = [
    ("lstm", 1, False, False, False, True, "trace", None),
    ("lstm", 2, True, True, True, False, "trace", None),
    ("lstm", 3, True, False, True, True, "script", None),
    ("lstm", 2, False, True, False, False, "script", None),
    ("lstm", 3, False, True, True, False, "trace", 9),
    ("lstm", 1, True, False, False, False, "script", 9),
    ("gru", 1, True, True, True, True, "trace", None),
    ("gru", 2, False, False, False, False, "script", None),
    ("gru", 3, True, False, True, False, "trace", None),
    ("gru", 2, True, True, False, True, "script", 8),
    ("tanh", 2, True, True, False, True, "script", None),
    ("tanh", 1, False, False, True, False, "trace", None),
    ("tanh", 3, True, True, True, False, "script", None),
    ("relu", 1, True, False, True, True, "script", None),
    ("relu", 2, False, True, False, False, "trace", None),
    ("relu", 3, False, False, False, True, "trace", 7),
]


def grid_name(cell, layers, bi, bf, h0, sorted_, method, total):
    name = (f"{cell}_{layers}l_{'bi' if bi else 'uni'}_{'bf' if bf else 'tf'}_{'h0' if h0 else 'noh'}_"
            f"{'sorted' if sorted_ else 'unsorted'}_{method}")
    return name + (f"_total{total}" if total else "")


def cases():
    """name -> (module, method, [inputs per size], extra cli args, rtol)."""
    import torch
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class Packed(nn.Module):
        # forward(x, lengths[, h0[, c0]]): the LSTM's (h0, c0) tuple is built inside.
        def __init__(self, cell, layers, bi, bf, sorted_, total, padding_value=0.0):
            super().__init__()
            kinds = {"lstm": (nn.LSTM, {}), "gru": (nn.GRU, {}), "tanh": (nn.RNN, {"nonlinearity": "tanh"}),
                     "relu": (nn.RNN, {"nonlinearity": "relu"})}
            ctor, extra = kinds[cell]
            self.rnn = ctor(INPUT, HIDDEN, num_layers=layers, bidirectional=bi, batch_first=bf, **extra)
            self.batch_first = bf
            self.enforce_sorted = sorted_
            self.total_length = total
            self.padding_value = padding_value


    class NoState(Packed):
        def forward(self, x, lengths):
            packed = pack_padded_sequence(x, lengths, batch_first=self.batch_first,
                                          enforce_sorted=self.enforce_sorted)
            out, h = self.rnn(packed)
            y, out_lengths = pad_packed_sequence(out, batch_first=self.batch_first, padding_value=self.padding_value,
                                                 total_length=self.total_length)
            return y, out_lengths, h

    class HiddenState(Packed):  # GRU / RNN with h0
        def forward(self, x, lengths, h0):
            packed = pack_padded_sequence(x, lengths, batch_first=self.batch_first,
                                          enforce_sorted=self.enforce_sorted)
            out, h = self.rnn(packed, h0)
            y, out_lengths = pad_packed_sequence(out, batch_first=self.batch_first, padding_value=self.padding_value,
                                                 total_length=self.total_length)
            return y, out_lengths, h

    class LstmState(Packed):  # LSTM with (h0, c0)
        def forward(self, x, lengths, h0, c0):
            packed = pack_padded_sequence(x, lengths, batch_first=self.batch_first,
                                          enforce_sorted=self.enforce_sorted)
            out, (h, c) = self.rnn(packed, (h0, c0))
            y, out_lengths = pad_packed_sequence(out, batch_first=self.batch_first, padding_value=self.padding_value,
                                                 total_length=self.total_length)
            return y, out_lengths, h, c

    class Stacked(nn.Module):
        # Two LSTMs on the same PackedSequence (the second takes the first's packed output), and a
        # pack -> pad round trip with another padding value: the input itself, masked.
        def __init__(self):
            super().__init__()
            self.first = nn.LSTM(INPUT, HIDDEN, batch_first=True)
            self.second = nn.GRU(HIDDEN, 3, num_layers=2, bidirectional=True, batch_first=True)

        def forward(self, x, lengths):
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            mid, _ = self.first(packed)
            out, h = self.second(mid)
            y, _ = pad_packed_sequence(out, batch_first=True)
            same, _ = pad_packed_sequence(packed, batch_first=True, padding_value=-1.0, total_length=10)
            return y, h, same

    def lengths_sets(batch, steps, sorted_):
        # Other lengths than the example run's (ones): full, mixed, with ties.
        sets = [[steps, steps - 2, 2, 1], [steps - 1, steps - 1, steps - 3, 1], [3, 3, 2, 2]]
        sets = [s[:batch] for s in sets]
        if not sorted_:  # ascending, then rotated: neither sorted nor reverse-sorted from batch 3 on
            sets = [s[::-1][1:] + s[::-1][:1] if batch > 2 else s[::-1] for s in sets]
        return [torch.tensor(s, dtype=torch.int64) for s in sets]

    def inputs_for(cell, layers, bi, bf, h0, sorted_, batch=4, steps=6):
        gen = torch.Generator().manual_seed(batch * 100 + steps)
        out = []
        for lengths in lengths_sets(batch, steps, sorted_):
            x = torch.randn(*((batch, steps, INPUT) if bf else (steps, batch, INPUT)), generator=gen)
            args = [x, lengths]
            if h0:
                state = (layers * (2 if bi else 1), batch, HIDDEN)
                args.append(torch.randn(*state, generator=gen))
                if cell == "lstm":
                    args.append(torch.randn(*state, generator=gen))
            out.append(args)
        return out

    all_cases = {}
    for spec in GRID:
        cell, layers, bi, bf, h0, sorted_, method, total = spec
        torch.manual_seed(zlib.crc32(grid_name(*spec).encode()))
        cls = (LstmState if cell == "lstm" else HiddenState) if h0 else NoState
        module = cls(cell, layers, bi, bf, sorted_, total)
        all_cases[grid_name(*spec)] = (module, method, inputs_for(cell, layers, bi, bf, h0, sorted_), [], 1e-4)

    torch.manual_seed(7)
    all_cases["stacked_lstm_gru_trace"] = (Stacked(), "trace", [a[:2] for a in inputs_for("lstm", 1, False, True, False,
                                                                                          False)], [], 1e-4)
    torch.manual_seed(8)
    all_cases["stacked_lstm_gru_script"] = (Stacked(), "script", [a[:2] for a in inputs_for("lstm", 1, False, True,
                                                                                            False, False)], [], 1e-4)

    # Dynamic batch and time axes: exported at [4, 6], run at other batch sizes and lengths.
    def dynamic(method, h0):
        torch.manual_seed(9 if method == "trace" else 10)
        module = (LstmState if h0 else NoState)("lstm", 2, True, True, False, None)
        sizes = inputs_for("lstm", 2, True, True, h0, False)[:1]
        sizes += inputs_for("lstm", 2, True, True, h0, False, batch=2, steps=9)[:2]
        sizes += inputs_for("lstm", 2, True, True, h0, False, batch=3, steps=4)[:1]
        axes = ["x=0:batch,1:time", "lengths=0:batch"]
        if h0:
            axes += ["h0=1:batch", "c0=1:batch"]
        return module, method, sizes, sum((["--dynamic-axes", a] for a in axes), []), 1e-4

    # A traced model without an initial state has its zero state's batch size baked in (PyTorch's
    # own traced model fails at another batch size), so the traced case gives h0/c0.
    class DataUse(nn.Module):
        # A Linear on the PackedSequence's data: ONNX has no packed layout, so this is refused.
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(INPUT, 3)

        def forward(self, x, lengths):
            packed = pack_padded_sequence(x, lengths)
            return self.lin(packed.data)

    torch.manual_seed(11)
    all_cases["refused_data_linear_script"] = (DataUse(), "script", inputs_for("lstm", 1, False, False, False, True)[:1],
                                               [], 1e-4)
    all_cases["dynamic_lstm_2l_bi_bf_h0_unsorted_trace"] = dynamic("trace", True)
    all_cases["dynamic_lstm_2l_bi_bf_noh_unsorted_script"] = dynamic("script", False)
    return all_cases


def case_names():
    names = [grid_name(*spec) for spec in GRID]
    return names + ["stacked_lstm_gru_trace", "stacked_lstm_gru_script", "refused_data_linear_script",
                    "dynamic_lstm_2l_bi_bf_h0_unsorted_trace", "dynamic_lstm_2l_bi_bf_noh_unsorted_script"]


def write_case(out_dir, name, case, digest):
    import torch
    import make_fixtures as mf
    module, method, sizes, extra_args, rtol = case
    module.eval()
    target = os.path.join(out_dir, name)
    tmp = target + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with torch.no_grad():
        ts = torch.jit.script(module) if method == "script" else torch.jit.trace(module, tuple(sizes[0]),
                                                                                 check_trace=False)
    pt = os.path.join(tmp, "model.pt")
    ts.save(pt)
    for k, inputs in enumerate(sizes):
        d = os.path.join(tmp, f"size_{k}")
        os.makedirs(d)
        with open(os.path.join(d, "meta.json"), "w") as f:
            json.dump(mf.outputs_meta(pt, inputs, rtol, d, method), f, indent=1)
    args = []
    for t in sizes[0]:
        args += ["--input", mf.cli_spec(t)]
    with open(os.path.join(tmp, "export.json"), "w") as f:
        json.dump({"source_hash": digest, "cli_args": args + extra_args, "sizes": len(sizes)}, f, indent=1)
    shutil.rmtree(target, ignore_errors=True)
    os.rename(tmp, target)


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(case_names()))
        return
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out_dir = sys.argv[1]
    import make_fixtures as mf

    def generate(digest):
        import torch
        torch.set_num_threads(1)
        for name, case in cases().items():
            write_case(out_dir, name, case, digest)

    mf.generate_once(out_dir, __file__, generate)


if __name__ == "__main__":
    main()
