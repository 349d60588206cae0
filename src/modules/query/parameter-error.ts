import { AppError } from '../../kernel/errors.ts'

/** A request parameter the Query API refuses: `INVALID_PARAMETER`, the message led by the parameter's name. */
export function parameterError(name: string, message: string): AppError {
  return new AppError('INVALID_PARAMETER', `${name}: ${message}`, { details: [{ field: name, message }] })
}
