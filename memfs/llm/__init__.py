"""The LLM path: chat-model extraction, merge decisions, summaries and recall helpers.

Importing `memfs.llm` (or `memfs.llm.config`) is cheap and does not import the openai
package; import the module you need (`memfs.llm.runtime.LLMRuntime` composes them).
"""
