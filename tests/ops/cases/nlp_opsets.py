# The NLP models of transformer_models.py at opsets 18, 20, 23 and 26 (the new forms: Reduce* axes
# inputs and Split num_outputs at 18, Gelu at 20, ir_version 11 at 23, Swish at 24, ...). A
# representative subset, to keep CI short: encoder (fused and scripted), decoder, LSTM, full
# nn.Transformer, one dynamic-batch export.
import torch
from op_case import case

import transformer_models as tm

HIGH = (18, 20, 23, 26)

CASES = [
    case("bert_encoder", tm.Bert(), [tm.ids2], rtol=2e-3, opsets=HIGH),
    case("bert_encoder_script", tm.Bert(), [tm.ids2], rtol=2e-3, method="script", opsets=(20, 23)),
    case("gpt_decoder", tm.Gpt(), [tm.ids1], rtol=2e-3, opsets=HIGH),
    case("lstm_tagger", tm.LstmTagger(), [tm.ids2], rtol=2e-3, opsets=(18, 23)),
    case("transformer_script", tm.small_transformer(), [torch.randn(2, 5, 16), torch.randn(2, 7, 16)], rtol=2e-3,
         method="script", opsets=(18, 23)),
    case("gpt_decoder_dyn", tm.Gpt(), [tm.ids1], rtol=2e-3, cli_args=("--dynamic-axes", "ids=0"), opsets=(18, 23)),
]
