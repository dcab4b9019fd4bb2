import { BaseChatModel, BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { AIMessage, BaseMessage } from '@langchain/core/messages';
import { ChatResult } from '@langchain/core/outputs';

/**
 * A chat model that answers from a script and names itself the way provider packages do (`ls_model_name` in
 * getLsParams), so the callbacks LangChain sends for it are the ones a real provider's runs produce.
 */
export class ScriptedChatModel extends BaseChatModel {
  private readonly state: { replies: AIMessage[] };

  constructor(
    readonly model: string,
    replies: AIMessage[] | { replies: AIMessage[] },
  ) {
    super({});
    this.state = Array.isArray(replies) ? { replies: [...replies] } : replies;
  }

  _llmType(): string {
    return 'scripted';
  }

  override getLsParams(options: this['ParsedCallOptions']) {
    return { ...super.getLsParams(options), ls_model_name: this.model };
  }

  override bindTools(): ScriptedChatModel {
    return new ScriptedChatModel(this.model, this.state);
  }

  async _generate(_messages: BaseMessage[], _options: BaseChatModelCallOptions): Promise<ChatResult> {
    const message = this.state.replies.shift() ?? new AIMessage('Done.');
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}
