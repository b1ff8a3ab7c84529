# NVIDIA Dynamo (81eee4bb) + TensorRT-LLM (92d37d84) disaggregated serving of
# GLM-5.2 (NVFP4) on GB300 NVL72 — 12 GPUs across 3 nodes:
# 1x context worker (TP4 + MoE EP4, 4 GPUs) + 1x generation worker
# (TP8 + MoE EP8, MTP depth 5) + Dynamo frontend with KV-cache-aware routing
# (fastokens tokenizer, glm47 tool-call parser, glm45 reasoning parser).
# Worker environment (every worker; container paths and per-allocation endpoints omitted):
# TLLM_PREFIX_TOKEN_CACHE=1 TRTLLM_SERVE_ENABLE_MSGSPEC=1 DYN_TRTLLM_ENABLE_ATTENTION_DP=1
# DYN_TRTLLM_BATCHED_EGRESS=1 DYN_HEALTH_CHECK_ENABLED=false DYN_ENGINE_CONV_AFFINITY=1
# DYN_SYSTEM_PORT=8081 DYN_UCX_TLS=^ib DYN_TCP_REQUEST_TIMEOUT=30 DYN_TOKENIZER=fastokens
# DYN_KV_BLOCK_SIZE=128 TLLM_LOG_LEVEL=INFO TRTLLM_SERVER_DISABLE_GC=1
# TRTLLM_WORKER_DISABLE_GC=1 TRTLLM_ENABLE_PDL=1 NCCL_GRAPH_MIXING_SUPPORT=0
# TLLM_ADP_ROUTER_MATCH_RATE_THRESHOLD=0.10 HF_HUB_OFFLINE=1
# TRTLLM_KV_CACHE_TRANSFER_TIMEOUT_SEC=480 TRTLLM_REQUEST_KV_CACHE_CONCURRENT=1
# TRTLLM_KVCACHE_SEND_MAX_CONCURRENCY_NUM=2 PYTHONUNBUFFERED=1 DYN_PUBLISH_KV_EVENTS=0
# DYN_TOOL_CALL_PARSER=glm47 DYN_REASONING_PARSER=glm45 SERVED_MODEL_NAME=GLM-5.2
# Dynamo frontend / router environment (OpenAI-compatible on :8333):
# ROUTER_MODE=kv DYN_KV_BLOCK_SIZE=128 DEBUG_ROUTER=0 PYTHONUNBUFFERED=1
# DYN_ROUTER_QUEUE_THRESHOLD=None DYN_ROUTER_TEMPERATURE=0
# DYN_ROUTER_TRACK_PREFILL_TOKENS=1 DYN_TOKENIZER_CACHE=1
# DYN_TOKENIZER_CACHE_BYTES=8000000000 DYN_TOKENIZER=fastokens DYN_TCP_REQUEST_TIMEOUT=30
# DYN_LOG=warn DYN_ROUTER_SESSION_AFFINITY_TTL_SECS=2400
# Bring-up is driven by NVIDIA's submitter, which renders and launches the worker
# commands with the configs below:
python3 scripts/submit_agent_perf.py \
--cluster-file clusters/aa-raplab.yaml \
--config agent-perf/glm_5.2/gb300/config_raplab.yaml \
--slo-yaml pareto01_img4_batched_egress1_fullpareto.yaml \
--image-path-file image_path_img3.txt \
--generated-dir generated_p01 \
--results-dir results/dynamo/img3 \
--wait-poll-seconds 30
