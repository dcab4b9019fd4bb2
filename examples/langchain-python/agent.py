"""LangChain tools with toolcoach: live descriptions and the guard in, every call reported.

An agent (LangGraph's create_react_agent(model, tools), say) passes its config to each tool it calls:
agent.invoke({"messages": [("user", "Factor 360")]}, config=config). Here the calls a model would make are made directly.
"""
from langchain_core.tools import tool

from toolcoach import ToolcoachCallbackHandler, load_tools  # TOOLCOACH_URL, TOOLCOACH_API_KEY from the env


@tool
def prime_factorization(number: int) -> list:
    """Returns the prime factors of one integer."""
    factors, divisor = [], 2
    while number > 1:
        while number % divisor == 0:
            factors.append(divisor)
            number //= divisor
        divisor += 1
    return factors


prime_factorization.handle_tool_error = True  # LangChain's way: a refusal becomes an error ToolMessage for the model
tools = load_tools([prime_factorization], guard=True)  # registers the tools, then gives them the live descriptions
config = {"callbacks": [ToolcoachCallbackHandler(agent="math-agent")]}

print(prime_factorization.invoke({"number": 360}, config=config))
print(prime_factorization.invoke({"numbers": [12]}, config=config))  # the guard corrects it to {"number": 12}
print(prime_factorization.invoke({"numbers": [12, 18]}, config=config))  # refused: one number per call
