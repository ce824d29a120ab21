# nn.MultiheadAttention and nn.Transformer*Layer in eval. Traced under no_grad with batch_first=True
# and self-attention, PyTorch records the fused ops (aten::_native_multi_head_attention,
# aten::_transformer_encoder_layer_fwd); otherwise the slow path (linear, bmm/baddbmm, softmax, ...).
import torch
from op_case import case


class SelfAttn(torch.nn.Module):
    def __init__(self, need_weights=False, average=True, **kw):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(16, 4, **kw)
        self.need_weights = need_weights
        self.average = average

    def forward(self, x):
        out, w = self.m(x, x, x, need_weights=self.need_weights, average_attn_weights=self.average)
        return (out, w) if self.need_weights else out


class SelfAttnOut(torch.nn.Module):
    """Scriptable: output only."""

    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(16, 4, **kw)

    def forward(self, x):
        return self.m(x, x, x, need_weights=False)[0]


class SelfAttnKpm(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(16, 4, **kw)

    def forward(self, x, kpm):
        return self.m(x, x, x, key_padding_mask=kpm, need_weights=False)[0]


class CrossAttn(torch.nn.Module):
    """Distinct query/key/value (slow path), with optional masks, returning the weights."""

    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(16, 4, **kw)

    def forward(self, q, k, v, attn_mask, kpm):
        return self.m(q, k, v, attn_mask=attn_mask, key_padding_mask=kpm)


class CrossAttnNoMask(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(16, 4, **kw)

    def forward(self, q, k, v):
        return self.m(q, k, v)


class NativeMha(torch.nn.Module):
    """torch._native_multi_head_attention called directly: distinct key/value, mask_type 1."""

    def __init__(self):
        super().__init__()
        self.m = torch.nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, q, k, v, kpm):
        m = self.m
        return torch._native_multi_head_attention(q, k, v, 16, 4, m.in_proj_weight, m.in_proj_bias,
                                                  m.out_proj.weight, m.out_proj.bias, kpm, True, False, 1)


class NativeMhaWeightsIn(torch.nn.Module):
    """Projection weights as model inputs (sliced/transposed in the graph, not at export time)."""

    def forward(self, x, w, b, ow, ob):
        return torch._native_multi_head_attention(x, x, x, 16, 4, w, b, ow, ob, None, False, True, None)[0]


class EncLayer(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.TransformerEncoderLayer(16, 4, 32, **kw)

    def forward(self, x):
        return self.m(x)


class EncLayerKpm(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.TransformerEncoderLayer(16, 4, 32, **kw)

    def forward(self, x, kpm):
        return self.m(x, src_key_padding_mask=kpm)


class DecLayer(torch.nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.m = torch.nn.TransformerDecoderLayer(16, 4, 32, **kw)

    def forward(self, tgt, memory):
        return self.m(tgt, memory)


class DtypeRankBranches(torch.nn.Module):
    """Scripted branches on facts fixed at export: the input's dtype, rank and floating-pointness."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)

    def forward(self, x):
        if x.dtype == torch.float64:
            x = x.float()
        if not torch.is_floating_point(x):
            x = x.float()
        if x.dim() == 2:
            x = x.unsqueeze(0)
        y = self.lin(x)
        if y.dtype != x.dtype:
            y = y.to(x.dtype)
        return y.relu() if x.dim() == 3 else y


xb = torch.randn(2, 5, 16)   # [batch, seq, embed]
xs = torch.randn(5, 2, 16)   # [seq, batch, embed]
kpm = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
kv = torch.randn(7, 2, 16)
attn_mask = torch.randn(5, 7)
kpm7 = torch.zeros(2, 7, dtype=torch.bool)
kpm7[0, 5:] = True

CASES = [
    # fused: aten::_native_multi_head_attention
    case("mha_fused", SelfAttn(batch_first=True), [xb]),
    case("mha_fused_weights", SelfAttn(need_weights=True, batch_first=True), [xb]),
    case("mha_fused_head_weights", SelfAttn(need_weights=True, average=False, batch_first=True), [xb]),
    case("mha_fused_kpm", SelfAttnKpm(batch_first=True), [xb, kpm]),
    case("mha_fused_weights_dyn", SelfAttn(need_weights=True, batch_first=True), [xb],
         cli_args=("--dynamic-axes", "x=0,1")),
    case("mha_native_cross_kpm", NativeMha(), [xb, torch.randn(2, 5, 16), torch.randn(2, 5, 16), kpm]),
    case("mha_native_weights_in", NativeMhaWeightsIn(),
         [xb, torch.randn(48, 16), torch.randn(48), torch.randn(16, 16), torch.randn(16)]),
    # slow path: other families' ops
    case("mha_self_seq_first", SelfAttn(need_weights=True), [xs]),
    case("mha_cross", CrossAttnNoMask(), [xs, kv, kv]),
    case("mha_cross_masks", CrossAttn(), [xs, kv, torch.randn(7, 2, 16), attn_mask, kpm7]),
    case("mha_cross_bf_kdim", CrossAttnNoMask(batch_first=True, kdim=8, vdim=12),
         [xb, torch.randn(2, 7, 8), torch.randn(2, 7, 12)]),
    # fused: aten::_transformer_encoder_layer_fwd
    case("enc_layer_fused", EncLayer(batch_first=True), [xb]),
    case("enc_layer_fused_gelu_norm_first", EncLayer(batch_first=True, activation="gelu", norm_first=True), [xb]),
    case("enc_layer_fused_kpm", EncLayerKpm(batch_first=True), [xb, kpm]),
    case("enc_layer_fused_kpm_dyn", EncLayerKpm(batch_first=True), [xb, kpm],
         cli_args=("--dynamic-axes", "x=0,1", "--dynamic-axes", "kpm=0,1")),
    case("enc_layer_seq_first", EncLayer(), [xs]),
    case("dec_layer", DecLayer(), [xs, kv]),
    # scripted: the fast-path checks (prim::If on is_grad_enabled, `query is key`, dtypes, the
    # why_not_fast_path string) fold at export; forward()'s trailing Optional arguments take their
    # defaults (None) when no --input gives them.
    case("mha_script", SelfAttnOut(), [xs], method="script"),
    case("mha_script_bf", SelfAttnOut(batch_first=True), [xb], method="script"),
    case("mha_script_cross", CrossAttnNoMask(), [xs, kv, torch.randn(7, 2, 16)], method="script"),
    case("mha_script_cross_bf", CrossAttnNoMask(batch_first=True), [xb, torch.randn(2, 7, 16), torch.randn(2, 7, 16)],
         method="script"),
    case("mha_script_kpm", SelfAttnKpm(batch_first=True), [xb, kpm], method="script"),
    case("enc_layer_script", EncLayer(batch_first=True), [xb], method="script"),
    case("enc_layer_script_norm_first", EncLayer(batch_first=True, norm_first=True, activation="gelu"), [xb],
         method="script"),
    case("enc_layer_script_seq_first", EncLayer(), [xs], method="script"),
    case("enc_layer_script_defaults", torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), [xb],
         method="script"),
    case("mha_script_bf_dyn", SelfAttnOut(batch_first=True), [xb], method="script", cli_args=("--dynamic-axes", "x=0,1")),
    case("mha_script_cross_dyn", CrossAttnNoMask(), [xs, kv, torch.randn(7, 2, 16)], method="script",
         cli_args=("--dynamic-axes", "q=0,1", "--dynamic-axes", "k=0,1", "--dynamic-axes", "v=0,1")),
    case("enc_layer_script_dyn", EncLayer(batch_first=True), [xb], method="script",
         cli_args=("--dynamic-axes", "x=0,1")),
    case("enc_layer_script_kpm_default_mask", EncLayerKpm(batch_first=True), [xb, kpm], method="script"),
    case("encoder_2l_script",
         torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2,
                                     enable_nested_tensor=False), [xb], method="script"),
    case("dec_layer_script", DecLayer(batch_first=True), [xb, torch.randn(2, 7, 16)], method="script"),
    case("dtype_rank_branches_script", DtypeRankBranches(), [xb], method="script"),
    case("dtype_rank_branches_script_2d", DtypeRankBranches(), [torch.randn(5, 16)], method="script"),
    case("dtype_rank_branches_script_dyn", DtypeRankBranches(), [xb], method="script",
         cli_args=("--dynamic-axes", "x=0,1")),
    case("dec_layer_bf_gelu", DecLayer(batch_first=True, activation="gelu"), [xb, torch.randn(2, 7, 16)]),
]
