"""Model listings in the shapes OpenRouter (`GET /api/v1/models`) and Ollama (`/api/tags`, `/api/show`) use."""

from __future__ import annotations

from typing import Any

# The first model cannot call tools: the app must pick the first that can (openai/gpt-4o-mini).
OPENROUTER_MODELS: list[dict[str, Any]] = [
    {
        "id": "meta-llama/llama-3.2-3b-instruct:free",
        "canonical_slug": "meta-llama/llama-3.2-3b-instruct",
        "name": "Meta: Llama 3.2 3B Instruct (free)",
        "created": 1727222400,
        "description": "Llama 3.2 3B is a 3-billion-parameter multilingual model.",
        "context_length": 131072,
        "architecture": {"modality": "text->text", "input_modalities": ["text"], "output_modalities": ["text"],
                         "tokenizer": "Llama3", "instruct_type": "llama3"},
        "pricing": {"prompt": "0", "completion": "0", "request": "0", "image": "0", "web_search": "0",
                    "internal_reasoning": "0"},
        "top_provider": {"context_length": 131072, "max_completion_tokens": None, "is_moderated": False},
        "per_request_limits": None,
        "supported_parameters": ["max_tokens", "temperature", "top_p", "stop", "frequency_penalty"],
    },
    {
        "id": "openai/gpt-4o-mini",
        "canonical_slug": "openai/gpt-4o-mini",
        "name": "OpenAI: GPT-4o-mini",
        "created": 1721260800,
        "description": "GPT-4o mini is OpenAI's newest model after GPT-4 Omni.",
        "context_length": 128000,
        "architecture": {"modality": "text+image->text", "input_modalities": ["text", "image"],
                         "output_modalities": ["text"], "tokenizer": "GPT", "instruct_type": None},
        "pricing": {"prompt": "0.00000015", "completion": "0.0000006", "request": "0", "image": "0.000217",
                    "web_search": "0", "internal_reasoning": "0"},
        "top_provider": {"context_length": 128000, "max_completion_tokens": 16384, "is_moderated": True},
        "per_request_limits": None,
        "supported_parameters": ["max_tokens", "temperature", "top_p", "tools", "tool_choice", "stop",
                                 "response_format", "seed", "structured_outputs"],
    },
    {
        "id": "anthropic/claude-sonnet-4.5",
        "canonical_slug": "anthropic/claude-4.5-sonnet-20250929",
        "name": "Anthropic: Claude Sonnet 4.5",
        "created": 1759161676,
        "description": "Claude Sonnet 4.5 is Anthropic's most advanced Sonnet model to date.",
        "context_length": 1000000,
        "architecture": {"modality": "text+image->text", "input_modalities": ["text", "image", "file"],
                         "output_modalities": ["text"], "tokenizer": "Claude", "instruct_type": None},
        "pricing": {"prompt": "0.000003", "completion": "0.000015", "request": "0", "image": "0.0048",
                    "web_search": "0.01", "internal_reasoning": "0", "input_cache_read": "0.0000003"},
        "top_provider": {"context_length": 1000000, "max_completion_tokens": 64000, "is_moderated": False},
        "per_request_limits": None,
        "supported_parameters": ["include_reasoning", "max_tokens", "reasoning", "stop", "temperature",
                                 "tool_choice", "tools", "top_k", "top_p"],
    },
    {
        "id": "google/gemini-3-pro-preview",
        "canonical_slug": "google/gemini-3-pro-preview-20251117",
        "name": "Google: Gemini 3 Pro Preview",
        "created": 1763424000,
        "description": "Gemini 3 Pro is Google's flagship reasoning model.",
        "context_length": 1048576,
        "architecture": {"modality": "text+image->text", "input_modalities": ["text", "image", "file", "audio"],
                         "output_modalities": ["text"], "tokenizer": "Gemini", "instruct_type": None},
        "pricing": {"prompt": "0.000002", "completion": "0.000012", "request": "0", "image": "0.000002",
                    "web_search": "0", "internal_reasoning": "0"},
        "top_provider": {"context_length": 1048576, "max_completion_tokens": 65536, "is_moderated": False},
        "per_request_limits": None,
        "supported_parameters": ["include_reasoning", "max_tokens", "reasoning", "response_format", "seed",
                                 "stop", "structured_outputs", "temperature", "tool_choice", "tools", "top_p"],
    },
]

OLLAMA_MODELS: list[dict[str, Any]] = [
    {
        "name": "llama3.2:3b",
        "model": "llama3.2:3b",
        "modified_at": "2025-10-02T14:31:05.511208+02:00",
        "size": 2019393189,
        "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        "details": {"parent_model": "", "format": "gguf", "family": "llama", "families": ["llama"],
                    "parameter_size": "3.2B", "quantization_level": "Q4_K_M"},
        "context_length": 131072,
        "capabilities": ["completion", "tools"],
    },
    {
        "name": "qwen3:8b",
        "model": "qwen3:8b",
        "modified_at": "2025-09-12T09:02:44.120391+02:00",
        "size": 5225388164,
        "digest": "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41",
        "details": {"parent_model": "", "format": "gguf", "family": "qwen3", "families": ["qwen3"],
                    "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
        "context_length": 40960,
        "capabilities": ["completion", "tools", "thinking"],
    },
    {
        "name": "llava:7b",
        "model": "llava:7b",
        "modified_at": "2025-08-21T11:12:40.402113+02:00",
        "size": 4733363377,
        "digest": "8dd30f6b0cb19f555f2c7a7ebda861449ea2cc76bf1f44e262931f45fc81d081",
        "details": {"parent_model": "", "format": "gguf", "family": "llama", "families": ["llama", "clip"],
                    "parameter_size": "7B", "quantization_level": "Q4_0"},
        "context_length": 32768,
        "capabilities": ["completion", "vision"],
    },
]


def ollama_tags() -> dict[str, Any]:
    hidden = ("context_length", "capabilities")
    return {"models": [{k: v for k, v in m.items() if k not in hidden} for m in OLLAMA_MODELS]}


def ollama_show(name: str) -> dict[str, Any] | None:
    for model in OLLAMA_MODELS:
        if model["name"] == name or model["name"].split(":")[0] == name:
            family = model["details"]["family"]
            return {
                "license": "LICENSE TEXT",
                "modelfile": f"# Modelfile generated by \"ollama show\"\nFROM {model['name']}\n",
                "parameters": "stop \"<|eot_id|>\"",
                "template": "{{ .Prompt }}",
                "details": model["details"],
                "model_info": {
                    "general.architecture": family,
                    "general.parameter_count": 3212749888,
                    f"{family}.context_length": model["context_length"],
                    f"{family}.embedding_length": 3072,
                },
                "capabilities": model["capabilities"],
                "modified_at": model["modified_at"],
            }
    return None


def ollama_openai_models() -> dict[str, Any]:
    return {"object": "list", "data": [{"id": m["name"], "object": "model", "created": 1727222400,
                                        "owned_by": "library"} for m in OLLAMA_MODELS]}
