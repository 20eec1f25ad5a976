"""Every supported family against transformers in float32: prefill, KV-cache decoding, greedy
generation, export and PEFT adapters; and configs Quarry does not implement refused by name."""

from __future__ import annotations

import json

import pytest
import torch
from family_models import FAMILIES, hf_model, save_hf
from transformers import AutoModelForCausalLM

from quarry.errors import QuarryError
from quarry.models.generate import generate
from quarry.models.checkpoint import load_pretrained, save_pretrained
from quarry.training.lora import LoRALinear, apply_lora, save_adapter

TOLERANCE = 1e-4
NAMES = list(FAMILIES)


@pytest.fixture(scope="module")
def small_tokenizer():
    """Fewer ids than the families' 320-row embeddings."""
    from models_helpers import CORPUS

    from quarry.tokenizer import train_tokenizer

    return train_tokenizer(CORPUS, vocab_size=300)


@pytest.fixture(params=NAMES)
def pair(request, tmp_path):
    """(name, transformers model, the same checkpoint loaded by Quarry)."""
    hf = save_hf(request.param, tmp_path / "hf")
    return request.param, hf, load_pretrained(tmp_path / "hf"), tmp_path


def tokens(batch: int = 2, length: int = 24, seed: int = 1) -> torch.Tensor:
    return torch.randint(0, 256, (batch, length), generator=torch.Generator().manual_seed(seed))


def max_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a - b).abs().max().item()


@torch.no_grad()
def test_prefill_logits_match_transformers(pair):
    name, hf, ours, _ = pair
    ids = tokens()
    assert ours.args.family == hf.config.model_type
    assert max_diff(ours(ids), hf(ids).logits) < TOLERANCE, name


@torch.no_grad()
def test_kv_cache_decoding_matches_transformers(pair):
    """Prefill 9 tokens, then one token at a time past the 7-token sliding windows."""
    name, hf, ours, _ = pair
    ids = tokens()
    expected = hf(ids).logits
    ours.setup_caches(batch_size=2, max_seq_len=32)
    steps = [ours(ids[:, :9])] + [ours(ids[:, i:i + 1]) for i in range(9, ids.shape[1])]
    ours.remove_caches()
    assert max_diff(torch.cat(steps, dim=1), expected) < TOLERANCE, name


def test_greedy_generation_matches_transformers(pair):
    name, hf, ours, _ = pair
    for prompt in ([5, 17, 33, 2, 99, 4], [40, 41, 250]):
        ids = torch.tensor([prompt])
        theirs = hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=16, do_sample=False,
                             pad_token_id=0, eos_token_id=None)
        assert generate(ours, [prompt], max_new_tokens=16)[0] == theirs[0, len(prompt):].tolist(), name


@torch.no_grad()
def test_export_round_trips_through_transformers(pair):
    name, hf, ours, tmp_path = pair
    save_pretrained(ours, tmp_path / "ours")
    config = json.loads((tmp_path / "ours" / "config.json").read_text())
    assert config["model_type"] == hf.config.model_type
    theirs = AutoModelForCausalLM.from_pretrained(tmp_path / "ours", dtype=torch.float32,
                                                  attn_implementation="eager").eval()
    assert type(theirs) is type(hf)
    ids = tokens(seed=2)
    assert max_diff(theirs(ids).logits, hf(ids).logits) < TOLERANCE, name
    assert torch.equal(load_pretrained(tmp_path / "ours")(ids), ours(ids))


def test_lora_adapter_loads_in_peft_with_the_same_logits(pair):
    """Adapters on every projection (Phi-3's fused qkv_proj / gate_up_proj as PEFT names them)."""
    peft = pytest.importorskip("peft")
    name, hf, ours, tmp_path = pair
    wrapped = apply_lora(ours, rank=4, alpha=8, target_modules="all-linear")
    torch.manual_seed(3)
    for module in ours.modules():
        if isinstance(module, LoRALinear):
            torch.nn.init.normal_(module.lora_B.weight, std=0.05)
    save_adapter(ours, tmp_path / "adapter", base_model=str(tmp_path / "hf"))
    targets = set(json.loads((tmp_path / "adapter" / "adapter_config.json").read_text())["target_modules"])
    assert targets == {w.split(".")[-1] for w in wrapped}
    adapted = peft.PeftModel.from_pretrained(hf_model(name), tmp_path / "adapter").eval()
    ids = tokens(seed=4)
    with torch.no_grad():
        assert max_diff(adapted(ids).logits, ours.eval()(ids)) < TOLERANCE, name


def test_fused_and_plain_projections_take_llama_target_names(tmp_path):
    save_hf("phi3", tmp_path / "phi3")
    save_hf("starcoder2", tmp_path / "sc2")
    phi3 = apply_lora(load_pretrained(tmp_path / "phi3"), target_modules=["q_proj", "v_proj", "up_proj"])
    assert {w.split(".")[-1] for w in phi3} == {"qkv_proj", "gate_up_proj"}
    sc2 = apply_lora(load_pretrained(tmp_path / "sc2"), target_modules=["q_proj", "up_proj", "down_proj"])
    assert {w.split(".")[-1] for w in sc2} == {"q_proj", "c_fc", "c_proj"}


@pytest.mark.parametrize("name, changes, message", [
    ("llama", {"model_type": "gpt_neox"}, "model_type 'gpt_neox' is not supported"),
    ("llama", {"quantization_config": {"quant_method": "gptq"}}, "'quantization_config' is not implemented"),
    ("mistral", {"attention_bias": True}, "'attention_bias' is not implemented"),
    ("qwen2", {"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e6, "factor": 4.0}}, "'yarn'"),
    ("phi3", {"rope_parameters": {"rope_type": "longrope", "rope_theta": 1e4}}, "'longrope'"),
    ("gemma2", {"use_bidirectional_attention": True}, "use_bidirectional_attention=True"),
    ("starcoder2", {"hidden_act": "relu2"}, "hidden_act='relu2'"),
    ("qwen2", {"use_mrope": True}, "use_mrope=True"),
])
def test_unimplemented_configs_are_refused_before_any_weight_loads(tmp_path, name, changes, message):
    with pytest.raises(QuarryError, match=message):
        load_pretrained(_config_folder(tmp_path, name, **changes))  # no weights: refused on the config alone


def test_gemma_is_not_loaded_as_llama(tmp_path):
    """The silent failure of the issue: a Gemma checkpoint read with Llama's norms and MLP."""
    hf = save_hf("gemma", tmp_path)
    ours = load_pretrained(tmp_path)
    assert (ours.args.norm_offset, ours.args.embed_scale, ours.args.activation) == (1.0, True, "gelu_pytorch_tanh")
    ids = tokens()
    with torch.no_grad():
        assert max_diff(ours(ids), hf(ids).logits) < TOLERANCE


@pytest.mark.parametrize("name", NAMES)
def test_quarry_eval_bpb_on_the_family_equals_transformers_scoring(name, tmp_path, small_tokenizer, capsys):
    """`quarry eval bpb` on a transformers checkpoint folder (with a tokenizer.json): the same
    bits per byte as the same documents scored through transformers' own forward."""
    from quarry.eval.bpb import score_documents
    from quarry.cli import main

    hf = save_hf(name, tmp_path / "model")
    tokenizer = small_tokenizer
    tokenizer.save(tmp_path / "model")
    texts = ["def add(a, b):\n    return a + b\n" * 3, "The quick brown fox jumps over the lazy dog. " * 4]
    (tmp_path / "docs.jsonl").write_text("".join(
        json.dumps({"text": t, "meta": {"pile_set_name": "code", "id": str(i)}}) + "\n" for i, t in enumerate(texts)))
    assert main(["eval", "bpb", str(tmp_path / "model"), str(tmp_path / "docs.jsonl"), "--context-len", "32",
                 "--stride", "16", "--device", "cpu", "--no-mlflow", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    with torch.no_grad():
        theirs = score_documents(lambda ids: hf(ids).logits, tokenizer, [("code", t) for t in texts],
                                 context_len=32, stride=16, device="cpu")
    assert report["aggregate"]["bpb"] == pytest.approx(theirs.aggregate.bpb, rel=1e-5)
    assert report["aggregate"]["tokens"] == theirs.aggregate.tokens > 0


def test_eval_refuses_a_tokenizer_larger_than_the_embedding(tmp_path, tokenizer, capsys):
    from quarry.cli import main

    save_hf("qwen2", tmp_path / "model")
    tokenizer.save(tmp_path / "model")  # 400 ids, 320 embedding rows
    (tmp_path / "docs.jsonl").write_text(json.dumps({"text": "x = 1\n", "meta": {"pile_set_name": "code"}}) + "\n")
    assert main(["eval", "bpb", str(tmp_path / "model"), str(tmp_path / "docs.jsonl"), "--no-mlflow"]) == 1
    assert "its tokenizer has 400 ids, the model embeds only 320" in capsys.readouterr().err


@pytest.mark.parametrize("name", NAMES)
def test_batched_left_padded_generation_equals_one_by_one(name, tmp_path):
    """Padding masks, per-row RoPE positions and sliding windows agree inside a batch."""
    save_hf(name, tmp_path)
    ours = load_pretrained(tmp_path)
    prompts = [[5, 17, 33, 2, 99, 4, 8, 9, 10, 11], [40, 41], [300, 200, 100, 7]]
    batched = generate(ours, prompts, max_new_tokens=12)
    assert batched == [generate(ours, [p], max_new_tokens=12)[0] for p in prompts], name


def test_llama_attention_and_mlp_biases_match_transformers(tmp_path):
    import transformers

    from family_models import SHAPE

    torch.manual_seed(0)
    config = transformers.LlamaConfig(**SHAPE, attention_bias=True, mlp_bias=True)
    hf = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for param in hf.parameters():
            param.add_(torch.randn_like(param) * 0.05)
    hf.save_pretrained(tmp_path)
    ours = load_pretrained(tmp_path)
    assert ours.args.qkv_bias and ours.args.o_bias and ours.args.mlp_bias
    with torch.no_grad():
        assert max_diff(ours(tokens()), hf(tokens()).logits) < TOLERANCE


def test_released_config_keys_are_read(tmp_path):
    """Keys the released checkpoints carry beside transformers' own (StarCoder2's mlp_type and
    norm_type, Phi-3's auto_map) load; a value other than the implemented one is refused."""
    assert load_pretrained(_config_folder(tmp_path / "a", "starcoder2", mlp_type="default", norm_type="layer_norm",
                                          weights=True)).args.norm == "layer"
    assert load_pretrained(_config_folder(tmp_path / "b", "phi3", weights=True, auto_map={
        "AutoModelForCausalLM": "modeling_phi3.Phi3ForCausalLM"})).args.fused_qkv
    with pytest.raises(QuarryError, match="norm_type='rms_norm'"):
        load_pretrained(_config_folder(tmp_path / "c", "starcoder2", norm_type="rms_norm"))


def _config_folder(folder, name: str, weights: bool = False, **changes):
    """A family's checkpoint with its config.json edited; without its weights unless ``weights``."""
    save_hf(name, folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))
    if not weights:
        (folder / "model.safetensors").unlink()
    return folder


@pytest.mark.parametrize("name", NAMES)
def test_config_round_trips_for_every_family(name, tmp_path):
    from quarry.models.checkpoint import config_from_hf, config_to_hf

    save_hf(name, tmp_path)
    args = load_pretrained(tmp_path).args
    assert config_from_hf(config_to_hf(args)) == args


@pytest.mark.slow  # inductor compiles each block on CPU: ~10-30 s a family
@pytest.mark.parametrize("name", ["gemma2", "phi3", "starcoder2"])
def test_compiled_blocks_equal_eager(name, tmp_path):
    from quarry.training.distributed import compile_blocks

    save_hf(name, tmp_path)
    eager, compiled = load_pretrained(tmp_path), load_pretrained(tmp_path)
    compile_blocks(compiled)
    ids = tokens()
    with torch.no_grad():
        assert max_diff(compiled(ids), eager(ids)) < TOLERANCE
