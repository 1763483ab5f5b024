// The one error the OTLP decoders throw for a body they cannot read. Its message is written for
// the client: the receiver can put it as is into a 400 response (google.rpc.Status.message).

export type OtlpEncoding = 'protobuf' | 'json';

export class OtlpDecodeError extends Error {
  constructor(
    message: string,
    /** Which encoding the body was read as. */
    readonly encoding: OtlpEncoding,
  ) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}
