# NVIDIA Dynamo (ff18f7210d99) + TensorRT-LLM (gb300_PatchPr-3d27c24b)
# disaggregated serving of DeepSeek-V4-Pro (NVFP4 + DSpark draft) on GB300 NVL72 — 52 serving GPUs
# across 13 nodes: 5x context workers (TP4 + MoE EP4, attention-DP, 4 GPUs each)
# + 1x generation worker (TP32 + MoE EP32, attention-DP, DSpark draft length 6, 32 GPUs each)
# + Dynamo frontend with conversation-affinity KV routing (fastokens tokenizer, deepseek_v4 tool-call and
# reasoning parsers, KV events publication disabled).
# The frontend + etcd ran on an additional allocation node with no serving GPUs (node 13 of 14).
# Container image: <host-path>/dynamo_ff18f7210d99_trtllm_gb300_PatchPr-3d27c24b_patchpr.sqsh
# sha256 789607ba70f7eb4287872838f3e031f46b58dcb2857b0ac1d48a6e052b72568c
# Worker environment (every context and generation worker; per-allocation endpoints and host bind-mount paths redacted):
# DYN_SERVED_MODEL_NAME=DeepSeek-V4-Pro TLLM_LOG_LEVEL=INFO TRTLLM_SERVER_DISABLE_GC=1
# TRTLLM_WORKER_DISABLE_GC=1 TRTLLM_ENABLE_PDL=1 NCCL_GRAPH_MIXING_SUPPORT=0
# TLLM_METRICS_ALL_RANKS=1 HF_HUB_OFFLINE=1 TLLM_DISAGG_GEN_PRIORITIZE_FIRST_TOKEN=1
# TLLM_ADP_ROUTER_MATCH_RATE_THRESHOLD=0.10 TRTLLM_SERVE_ENABLE_MSGSPEC=1
# TRTLLM_DISABLE_KV_CACHE_RATIO_UPDATE=1 TRTLLM_MHC_ENABLE_FUSED_HC=1
# TRTLLM_MOE_A2A_DISABLE_CFT_COUNTED_WRITES=1 TRTLLM_MLA_EXTRA_OVERLAP=1
# TRTLLM_FUSED_FP8_QUANT_PACK=1 MIMALLOC_PURGE_DELAY=0 TLLM_NUMA_AWARE_WORKER_AFFINITY=0
# TRTLLM_DSV4_MEM_OPTS=1 TRTLLM_DSV4_ENABLE_SWA_SCRATCH_REUSE=1
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True CUDA_SCALE_LAUNCH_QUEUES=4x
# ENROOT_ALLOW_DEV=yes VIRTUAL_ENV=/opt/dynamo/venv
# PATH=/opt/dynamo/venv/bin:/usr/local/bin/etcd:/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/mpi/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# LD_PRELOAD=/opt/dynamo/libstdc++.so.6:/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/nixl/libnixl.so
# NIXL_PLUGIN_DIR=/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/nixl/plugins
# UCX_TLS=cuda_ipc,cuda_copy,sm,self,tcp DYN_REQUEST_PLANE=tcp DYN_KV_BLOCK_SIZE=128
# DYN_TOOL_CALL_PARSER=deepseek_v4 DYN_REASONING_PARSER=deepseek_v4 DYN_ENGINE_CONV_AFFINITY=1
# DYN_DEFAULT_THINKING_MODE=disabled DYN_HEALTH_CHECK_ENABLED=false
# Context workers additionally (weight-loading peak-memory workaround):
# TRT_LLM_DISABLE_LOAD_WEIGHTS_IN_PARALLEL=1 TRTLLM_HF_WEIGHT_LOAD_THREADS=1
# TRTLLM_LOCAL_WEIGHT_LOAD_CONCURRENCY=2
# Dynamo frontend / router (OpenAI-compatible on :8333):
# ROUTER_MODE=kv DYN_KV_BLOCK_SIZE=128 ETCD_LEASE_TTL=120 DYN_ROUTER_QUEUE_THRESHOLD=None
# DYN_TOKENIZER_CACHE=1 DYN_TOKENIZER_CACHE_BYTES=8000000000 DYN_TOKENIZER=fastokens
# DYN_ROUTER_SESSION_AFFINITY_TTL_SECS=14400
python3 -m dynamo.frontend --http-port 8333 --router-mode kv --no-router-kv-events --kv-cache-block-size 128 --enforce-disagg --request-plane tcp --event-plane zmq --active-decode-blocks-threshold None --active-prefill-tokens-threshold None --active-prefill-tokens-threshold-frac None
# Bring-up is driven by the vendor launcher in the AgentPerf submission
# (agentperf-client submissions/nvidia/deepseek-v4-pro/gb300-dynamo-trtllm-p08/run.sh): one sbatch over the
# 14-node allocation that starts etcd + frontend, then the workers below via `srun --overlap` per role:
OUTPUT_DIR=<host-path> ./run.sh
