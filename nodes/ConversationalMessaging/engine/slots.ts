/** A number of places (`size`), taken and given back in turn. */
export class Slots {
	inUse = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(public size: number) {}

	async take(): Promise<void> {
		while (this.inUse >= this.size)
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.inUse++;
	}

	give(): void {
		this.inUse--;
		this.waiting.shift()?.();
	}

	resize(size: number): void {
		for (let more = size - this.size; more > 0; more--) this.waiting.shift()?.();
		this.size = size;
	}
}
