# Model-level cases: BERT-style encoder (nn.TransformerEncoder), GPT-style decoder (hand-written
# causal attention with torch.triu + masked_fill), and a small LSTM tagger.
import math

import torch
from op_case import case


class Bert(torch.nn.Module):
    def __init__(self, batch_first=True, vocab=100, d=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.batch_first = batch_first
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(seq, d)
        self.register_buffer("pos_ids", torch.arange(seq))
        self.norm = torch.nn.LayerNorm(d)
        layer = torch.nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, activation="gelu",
                                                 batch_first=batch_first)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)
        self.pooler = torch.nn.Linear(d, d)

    def forward(self, ids):
        h = self.norm(self.tok(ids) + self.pos(self.pos_ids[: ids.size(1)]))
        if not self.batch_first:
            h = h.transpose(0, 1)
        h = self.encoder(h)
        if not self.batch_first:
            h = h.transpose(0, 1)
        return h, torch.tanh(self.pooler(h[:, 0]))


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
        att = att.masked_fill(causal, float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Gpt(torch.nn.Module):
    def __init__(self, vocab=100, d=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.blocks = torch.nn.Sequential(*[Block(d, heads) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        x = self.tok(ids) + self.pos[:, : ids.size(1)]
        return self.head(self.ln_f(self.blocks(x)))


class GptMha(torch.nn.Module):
    """GPT-style decoder built on nn.MultiheadAttention with a triu causal attn_mask (slow path)."""

    def __init__(self, vocab=100, d=64, heads=4, layers=2):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(16, d)
        self.attn = torch.nn.ModuleList([torch.nn.MultiheadAttention(d, heads, batch_first=True) for _ in range(layers)])
        self.ln = torch.nn.ModuleList([torch.nn.LayerNorm(d) for _ in range(2 * layers)])
        self.mlp = torch.nn.ModuleList([torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                                                            torch.nn.Linear(4 * d, d)) for _ in range(layers)])
        self.head = torch.nn.Linear(d, vocab)

    def forward(self, ids):
        t = ids.size(1)
        x = self.tok(ids) + self.pos(torch.arange(t, device=ids.device))
        mask = torch.zeros(t, t).masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf"))
        for i, (attn, mlp) in enumerate(zip(self.attn, self.mlp)):
            h = self.ln[2 * i](x)
            x = x + attn(h, h, h, attn_mask=mask, need_weights=False)[0]
            x = x + mlp(self.ln[2 * i + 1](x))
        return self.head(x)


class LstmTagger(torch.nn.Module):
    def __init__(self, vocab=100, d=32, hidden=24, tags=7):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d)
        self.lstm = torch.nn.LSTM(d, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.out = torch.nn.Linear(2 * hidden, tags)

    def forward(self, ids):
        y, _ = self.lstm(self.emb(ids))
        return torch.log_softmax(self.out(y), dim=-1)


class TransformerTgtMask(torch.nn.Module):
    """nn.Transformer with a causal target mask; its other Optional masks stay None (scripted)."""

    def __init__(self):
        super().__init__()
        self.t = torch.nn.Transformer(16, 4, 1, 1, 32, batch_first=True)

    def forward(self, src, tgt, tgt_mask):
        return self.t(src, tgt, tgt_mask=tgt_mask)


def small_transformer():
    return torch.nn.Transformer(16, 4, 1, 1, 32, batch_first=True)


def decoder_2l():
    return torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(16, 4, 32), 2)


ids2 = torch.randint(0, 100, (2, 16))
ids1 = torch.randint(0, 100, (1, 16))

CASES = [
    case("bert_encoder", Bert(), [ids2], rtol=2e-3),                   # fused encoder layers
    case("bert_encoder_seq_first", Bert(batch_first=False), [ids2], rtol=2e-3),  # slow path
    case("gpt_decoder", Gpt(), [ids1], rtol=2e-3),
    case("gpt_decoder_mha", GptMha(), [ids1], rtol=2e-3),
    case("lstm_tagger", LstmTagger(), [ids2], rtol=2e-3),
    # dynamic batch (the position table fixes the sequence length of the encoder models)
    case("bert_encoder_dyn", Bert(), [ids2], rtol=2e-3, cli_args=("--dynamic-axes", "ids=0")),
    case("gpt_decoder_dyn", Gpt(), [ids1], rtol=2e-3, cli_args=("--dynamic-axes", "ids=0")),
    case("lstm_tagger_dyn", LstmTagger(), [ids2], rtol=2e-3, cli_args=("--dynamic-axes", "ids=0,1")),
    # scripted: fast-path checks and Optional masks fold at export (trailing masks take their defaults)
    case("bert_encoder_script", Bert(), [ids2], rtol=2e-3, method="script"),
    case("gpt_decoder_script", Gpt(), [ids1], rtol=2e-3, method="script"),
    case("lstm_tagger_script", LstmTagger(), [ids2], rtol=2e-3, method="script"),
    case("transformer_script", small_transformer(), [torch.randn(2, 5, 16), torch.randn(2, 7, 16)], rtol=2e-3,
         method="script"),
    case("transformer_script_tgt_mask", TransformerTgtMask(),
         [torch.randn(2, 5, 16), torch.randn(2, 7, 16), torch.nn.Transformer.generate_square_subsequent_mask(7)],
         rtol=2e-3, method="script"),
    case("decoder_2l_script", decoder_2l(), [torch.randn(7, 2, 16), torch.randn(5, 2, 16)], rtol=2e-3,
         method="script"),
]
