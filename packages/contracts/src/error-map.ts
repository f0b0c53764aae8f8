import { z } from 'zod';
import { idMessages } from './ids.ts';
import { messages } from './messages.ts';

/**
 * The message of every field error no schema words itself: a value of the wrong type, size or form
 * gets a sentence a person understands, never the validator's defaults ("Invalid input", "Too big:
 * expected string to have <=500 characters"). Only a missing value reads 'This field is required.';
 * a value that is present but wrong says what is expected. Installed for every parse (z.config) when
 * the contracts load, for the server and the forms alike.
 */

const typeMessages: Record<string, string> = {
  string: messages.notText,
  number: messages.notNumber,
  int: idMessages.notAWholeNumber,
  boolean: messages.notTrueOrFalse,
  array: messages.notList,
  object: messages.notObject,
  record: messages.notObject,
};

/** Option lists short enough to read in a message. */
const MAX_LISTED_OPTIONS = 12;

const fieldErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? messages.required : (typeMessages[issue.expected] ?? messages.invalidValue);
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return messages.textTooLong(max);
      if (issue.origin === 'array' || issue.origin === 'set') return messages.tooManyItems(max);
      if (issue.origin === 'number' || issue.origin === 'int') {
        return issue.inclusive === false ? messages.numberNotBelow(max) : idMessages.numberTooLarge(max);
      }
      return messages.invalidValue;
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string') return min <= 1 ? messages.required : messages.textTooShort(min);
      if (issue.origin === 'array' || issue.origin === 'set') return messages.tooFewItems(min);
      if (issue.origin === 'number' || issue.origin === 'int') {
        return issue.inclusive === false ? messages.numberNotAbove(min) : idMessages.numberTooSmall(min);
      }
      return messages.invalidValue;
    }
    case 'invalid_value': {
      const listable =
        issue.values.length <= MAX_LISTED_OPTIONS &&
        issue.values.every((value) => typeof value === 'string' || typeof value === 'number');
      return listable ? messages.chooseOneOf(issue.values.map(String)) : messages.invalidValue;
    }
    case 'invalid_format':
      if (issue.format === 'email') return messages.invalidEmail;
      if (issue.format === 'url') return messages.invalidUrl;
      if (issue.format === 'uuid' || issue.format === 'guid') return idMessages.invalidId;
      return messages.invalidFormat;
    case 'not_multiple_of':
      return messages.notMultipleOf(Number(issue.divisor));
    case 'unrecognized_keys':
      return messages.unknownFields(issue.keys);
    case 'invalid_union':
      return issue.input === undefined ? messages.required : messages.invalidValue;
    default:
      return messages.invalidValue;
  }
};

z.config({ customError: fieldErrorMap });

/**
 * A schema's own message for a value of the wrong type (`"weight": true`), leaving a missing value to
 * read 'This field is required.' (or `missing` when given) and every other issue to its check.
 */
export const wrongTypeError = (wrongType: string, missing?: string) => ({
  error: (issue: z.core.$ZodRawIssue) => {
    if (issue.code !== 'invalid_type') return undefined;
    return issue.input === undefined ? missing : wrongType;
  },
});
