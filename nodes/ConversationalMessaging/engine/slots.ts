/** A number of places, taken and given back in turn. */
export class Slots {
	private used = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(private capacity: number) {}

	async take(): Promise<void> {
		while (this.used >= this.capacity)
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		this.used++;
	}

	give(): void {
		this.used--;
		this.waiting.shift()?.();
	}

	get inUse(): number {
		return this.used;
	}

	get size(): number {
		return this.capacity;
	}

	resize(capacity: number): void {
		const more = capacity - this.capacity;
		this.capacity = capacity;
		for (let i = 0; i < more; i++) this.waiting.shift()?.();
	}
}
